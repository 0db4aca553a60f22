// Clear the pending state of memories whose vector (for that content hash) is in Qdrant. An
// item with a `state` clears only that exact pending state: a writer that marked the memory
// pending again since (a supersession, say) keeps its mark for its own vector write.
UNWIND $items AS item
MATCH (m:Memory {id: item.id})
WHERE m.content_hash = item.content_hash
  AND (item.state IS NULL OR m.vector_state = item.state)
SET m.vector_state = 'ok'
RETURN count(m) AS synced
