// Create or update one memory; vector_state is pending until Qdrant has its vector ($pending:
// 'pending:' and a token of this save, which any later writer's plain 'pending' replaces), and
// context_state until the context indexer has refreshed its graph-contextual text; vector_store
// names the vector storage written to (its background work is for processes writing there).
// The sessions it leaves and joins are counted before and after (the namespace's `sessions`).
OPTIONAL MATCH (before:Memory {id: $id})
WITH [before.session_id, $session_id] AS sessions
CALL (sessions) {
  // @include sessions_present
  RETURN count(session) AS sessions_before
}
MERGE (m:Memory {id: $id})
ON CREATE SET m.created_at = $created_at, m.accessed_at = $created_at, m.access_count = 0
WITH m, sessions, sessions_before, coalesce(m.content_hash, '') <> $content_hash AS changed,
     m.size_bytes IS NULL AS created, coalesce(m.size_bytes, 0) AS old_size
SET m:$($namespace_label),
    m.namespace = $namespace,
    m.key = $key,
    m.type = $type,
    m.title = $title,
    m.summary = $summary,
    m.content = $content,
    m.tags = $tags,
    m.tags_text = $tags_text,
    m.score = $score,
    m.metadata_json = $metadata_json,
    m.session_id = $session_id,
    m.text_sha256 = $text_sha256,
    m.size_bytes = $size_bytes,
    m.updated_at = $now,
    m.vector_store = $vector_store,
    m.vector_state = CASE WHEN m.content_hash = $content_hash AND m.vector_state = 'ok' THEN 'ok' ELSE $pending END,
    m.content_hash = $content_hash
REMOVE m:UnnamedStorage
// The namespace's counters (memory_stats): one more memory, or the size difference; a session
// more or less.
WITH m, changed, created, old_size, sessions, sessions_before
CALL (sessions) {
  // @include sessions_present
  RETURN count(session) AS sessions_after
}
CALL (m, created, old_size, sessions_before, sessions_after) {
  MERGE (s:NamespaceStats {namespace: m.namespace})
  SET s.memories = coalesce(s.memories, 0) + CASE WHEN created THEN 1 ELSE 0 END,
      s.size_bytes = coalesce(s.size_bytes, 0) + m.size_bytes - old_size,
      s.links = coalesce(s.links, 0),
      s.sessions = coalesce(s.sessions, 0) + sessions_after - sessions_before,
      s.graph_version = randomUUID()
  RETURN s.size_bytes + 64 * s.links AS db_size_bytes,
         [s.graph_version, s.memories, s.links, s.size_bytes] AS graph_version
}
// A changed text changes its own context and every context that reads it (context_claim):
// its neighbours', and theirs through neighbours of at most 5 links.
WITH m, changed, db_size_bytes, graph_version
CALL (m, changed) {
  WITH m WHERE changed
  SET m.context_state = 'pending', m.context_seq = coalesce(m.context_seq, 0) + 1,
      m.context_since = coalesce(m.context_since, timestamp())
  WITH m
  // @include mark_text_readers
}
// The namespace's graph version after this write, and the memory as a link graph snapshot holds
// it (link_graph_memories): what a process advances its snapshot with (link_graph.py).
RETURN m.vector_state STARTS WITH 'pending' AS vector_pending, m.superseded_by IS NOT NULL AS superseded,
       db_size_bytes, graph_version,
       [m.id, m.key, m.type, m.tags, m.score, m.created_at.epochMillis,
        m.superseded_by IS NOT NULL] AS walk
