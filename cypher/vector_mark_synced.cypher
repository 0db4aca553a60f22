// Clear the pending state of memories whose vector (for that content hash) is in Qdrant. An
// item with a `state` clears only that exact pending state: a writer that marked the memory
// pending again since (a supersession, say) keeps its mark for its own vector write. The test
// is the right-hand side of the SET, so Cypher takes the node's write lock before reading the
// state: a test in a WHERE would read it unlocked, and a supersession committing in between
// would be overwritten (a lost update under read committed).
// @include lock_namespaces_of_items
UNWIND $items AS item
MATCH (m:Memory {id: item.id})
SET m.vector_state = CASE
      WHEN m.content_hash = item.content_hash
           AND (item.state IS NULL OR m.vector_state = item.state) THEN 'ok'
      ELSE m.vector_state
    END
RETURN count(m) AS synced
