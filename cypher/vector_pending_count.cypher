// How many memories of the vector storage $vector_store wait for their vector to be written
// (vector_pending's memories, counted).
MATCH (m:Memory)
WHERE m.vector_state STARTS WITH 'pending'
  AND coalesce(m.vector_store, $vector_store) = $vector_store
RETURN count(m) AS pending
