// Delete memories with their links and leave a tombstone for their vectors; the namespace's
// counters lose their sizes, links and the sessions no memory has any more. Each row: id, key, size_bytes and (repeated) the number
// of links removed with the whole set. With $seen (id -> [accessed ms, updated ms] when the
// memory was chosen, as cleanup does), a memory read or saved since then is kept: it is
// write-locked before that is checked, so a save that committed first is never lost. A memory
// another delete removed while this one waited for its lock reads without properties: it is gone.
// @include lock_namespace
MATCH (m:Memory)
WHERE m.id IN $ids AND m.namespace = $namespace
SET m._lock = true
REMOVE m._lock
WITH m
WHERE m.id IS NOT NULL
  AND ($seen IS NULL
   OR $seen[m.id] = [m.accessed_at.epochMillis, m.updated_at.epochMillis])
WITH collect(m) AS doomed
CALL (doomed) {
  UNWIND doomed AS m
  OPTIONAL MATCH (m)-[r:LINK]-()
  RETURN count(DISTINCT r) AS links
}
CALL (doomed, links) {
  WITH doomed, links WHERE size(doomed) > 0
  MERGE (s:NamespaceStats {namespace: $namespace})
  SET s.memories = coalesce(s.memories, 0) - size(doomed),
      s.size_bytes = coalesce(s.size_bytes, 0) - reduce(b = 0, x IN doomed | b + coalesce(x.size_bytes, 0)),
      s.links = coalesce(s.links, 0) - links,
      s.graph_version = randomUUID()
}
UNWIND doomed AS m
MERGE (t:VectorTombstone {id: m.id})
SET t.namespace = m.namespace, t.created_at = $now
WITH m, m.id AS id, m.key AS key, coalesce(m.size_bytes, 0) AS size_bytes, links,
     m.session_id AS session
// Memories it superseded (and that stay) are current again; their vector flag follows.
CALL (m) {
  OPTIONAL MATCH (m)-[:SUPERSEDES]->(old:Memory)
  WHERE old.superseded_by = m.id AND NOT old.id IN $ids
  WITH old, old.vector_state = 'ok' AS was_synced
  FOREACH (x IN CASE WHEN old IS NULL THEN [] ELSE [old] END |
    REMOVE x.superseded_by, x.superseded_at
    SET x.vector_state = 'pending', x.context_state = 'pending',
        x.context_seq = coalesce(x.context_seq, 0) + 1,
        x.context_since = coalesce(x.context_since, timestamp()))
  RETURN collect(CASE WHEN old IS NULL THEN null
    ELSE {id: old.id, content_hash: old.content_hash, was_synced: was_synced} END) AS restored
}
// The contexts that read it (context_claim) lose its text and its links; a claim on it goes.
CALL (m) {
  // @include mark_text_readers
}
CALL (m) {
  MATCH (c:ContextClaim {id: m.id})
  DELETE c
}
DETACH DELETE m
WITH collect({id: id, key: key, size_bytes: size_bytes, links: links, restored: restored})
     AS gone, collect(DISTINCT session) AS sessions
CALL (sessions) {
  // @include sessions_present
  RETURN count(session) AS sessions_after
}
CALL (sessions, sessions_after) {
  WITH sessions, sessions_after WHERE size(sessions) > sessions_after
  MATCH (s:NamespaceStats {namespace: $namespace})
  SET s.sessions = coalesce(s.sessions, 0) - (size(sessions) - sessions_after)
}
UNWIND gone AS row
RETURN row.id AS id, row.key AS key, row.size_bytes AS size_bytes, row.links AS links,
       row.restored AS restored
