// Graph-contextual representation: each memory's text joined with its strongest neighbours'
// (context_text, fulltext-indexed), refreshed in the background while context_state is pending.
CREATE INDEX memory_context_state IF NOT EXISTS FOR (m:Memory) ON (m.context_state);
CREATE FULLTEXT INDEX memory_context_fulltext IF NOT EXISTS FOR (m:Memory) ON EACH [m.context_text] OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-folding', `fulltext.eventually_consistent`: false}};
MATCH (m:Memory) WHERE m.context_state IS NULL SET m.context_state = 'pending', m.context_seq = 1
