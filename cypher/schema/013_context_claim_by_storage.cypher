// context_claim reads only its own vector storage's backlog: the order indexes of 012 lead with
// the vector storage too, so a process whose storage has nothing waiting reads nothing of another
// storage's (several services on one Neo4j). Memories saved before storage was recorded (no
// vector_store; any storage may take their work) carry the label UnnamedStorage, which a save
// removes, and have an index of their own. 012's indexes stay while a release before this one
// may still run beside it (a rolling upgrade): its claim names them in hints.
CREATE INDEX memory_context_store_since IF NOT EXISTS FOR (m:Memory) ON (m.context_state, m.vector_store, m.context_since);
CREATE INDEX memory_context_store_created_at IF NOT EXISTS FOR (m:Memory) ON (m.context_state, m.vector_store, m.created_at);
CREATE INDEX unnamed_storage_context_state IF NOT EXISTS FOR (m:UnnamedStorage) ON (m.context_state);
MATCH (m:Memory) WHERE m.vector_store IS NULL
CALL (m) {
  SET m:UnnamedStorage
} IN TRANSACTIONS OF 10000 ROWS
