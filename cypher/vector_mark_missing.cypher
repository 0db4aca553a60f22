// Full reconcile: memories of the vector storage $vector_store (saved to it, or before stores
// were named) whose vector is not among $ids go back to pending; another storage's memories are
// that storage's to repair.
MATCH (m:Memory)
WHERE m.vector_state = 'ok' AND NOT m.id IN $ids
  AND coalesce(m.vector_store, $vector_store) = $vector_store
SET m.vector_state = 'pending'
RETURN count(m) AS marked
