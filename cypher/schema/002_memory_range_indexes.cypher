// Range indexes for namespace scans, timelines, LRU and type filters.
CREATE INDEX memory_namespace IF NOT EXISTS FOR (m:Memory) ON (m.namespace);
CREATE INDEX memory_namespace_created_at IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.created_at);
CREATE INDEX memory_namespace_accessed_at IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.accessed_at);
CREATE INDEX memory_namespace_type IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.type);
CREATE INDEX memory_created_at IF NOT EXISTS FOR (m:Memory) ON (m.created_at);
CREATE INDEX memory_accessed_at IF NOT EXISTS FOR (m:Memory) ON (m.accessed_at);
CREATE INDEX memory_type IF NOT EXISTS FOR (m:Memory) ON (m.type);
CREATE INDEX memory_vector_state IF NOT EXISTS FOR (m:Memory) ON (m.vector_state);
