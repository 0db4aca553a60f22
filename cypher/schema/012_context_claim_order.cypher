// The order in which context_claim takes the backlog: the longest waits past a bound
// (context_since) and otherwise the most recent memories (created_at), each read in index order.
CREATE INDEX memory_context_state_since IF NOT EXISTS FOR (m:Memory) ON (m.context_state, m.context_since);
CREATE INDEX memory_context_state_created_at IF NOT EXISTS FOR (m:Memory) ON (m.context_state, m.created_at)
