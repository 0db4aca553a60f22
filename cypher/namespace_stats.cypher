// memory_stats: the namespace's maintained counters (memories, size_bytes, links, sessions) and
// its oldest and newest memory: one seek of the (namespace, created_at) index each, which gives
// them in order only when named as a seek and sorted on both of its properties (else the planner
// walks the store-wide created_at index, or the whole composite index, until it meets the
// namespace, or sorts the whole namespace).
OPTIONAL MATCH (s:NamespaceStats {namespace: $namespace})
CALL () {
  MATCH (m:Memory)
  USING INDEX SEEK m:Memory(namespace, created_at)
  WHERE m.namespace = $namespace AND m.created_at IS NOT NULL
  WITH m ORDER BY m.namespace, m.created_at ASC LIMIT 1
  RETURN collect(m.created_at) AS oldest
}
CALL () {
  MATCH (m:Memory)
  USING INDEX SEEK m:Memory(namespace, created_at)
  WHERE m.namespace = $namespace AND m.created_at IS NOT NULL
  WITH m ORDER BY m.namespace DESC, m.created_at DESC LIMIT 1
  RETURN collect(m.created_at) AS newest
}
RETURN coalesce(s.memories, 0) AS memories, coalesce(s.size_bytes, 0) AS size_bytes,
       coalesce(s.links, 0) AS links, coalesce(s.sessions, 0) AS sessions,
       head(oldest) AS oldest, head(newest) AS newest
