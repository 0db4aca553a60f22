// Full reconcile: memories of the vector storage $vector_store whose context vector is not among
// $ids go back to pending, and no refresh may keep the vector they lack.
MATCH (m:Memory)
WHERE m.context_state IN ['ok', 'approximate'] AND NOT m.id IN $ids
  AND coalesce(m.vector_store, $vector_store) = $vector_store
SET m.context_state = 'pending', m.context_seq = coalesce(m.context_seq, 0) + 1,
    m.context_since = coalesce(m.context_since, timestamp()), m.context_embedded_hash = null
RETURN count(m) AS marked
