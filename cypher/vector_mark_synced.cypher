// Clear the pending state of memories whose vector (for that content hash) is in Qdrant.
UNWIND $items AS item
MATCH (m:Memory {id: item.id})
WHERE m.content_hash = item.content_hash
SET m.vector_state = 'ok'
RETURN count(m) AS synced
