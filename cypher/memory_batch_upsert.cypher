// Create or update many memories of one namespace by id (memory_upsert, one row per memory):
// vector_state is pending until Qdrant has the vector of a changed text; a changed text marks
// its own graph-contextual text pending and every one that reads it (as memory_upsert); the
// namespace's counters move once (its sessions by those the batch's memories leave and join,
// counted before and after).
// A row with `restore` (an import) keeps the exported timestamps, access count and supersession
// (its vector and its context go pending when its superseded flag changes).
// @include lock_namespace
CALL () {
  UNWIND $rows AS row
  OPTIONAL MATCH (before:Memory {id: row.id})
  UNWIND [before.session_id, row.session_id] AS session
  RETURN collect(DISTINCT session) AS sessions
}
CALL (sessions) {
  // @include sessions_present
  RETURN count(session) AS sessions_before
}
UNWIND $rows AS row
MERGE (m:Memory {id: row.id})
ON CREATE SET m.created_at = row.created_at, m.accessed_at = row.created_at, m.access_count = 0
WITH m, row, sessions, sessions_before, coalesce(m.content_hash, '') <> row.content_hash AS changed,
     m.size_bytes IS NULL AS created, coalesce(m.size_bytes, 0) AS old_size
SET m:$($namespace_label),
    m.namespace = $namespace,
    m.key = row.key,
    m.type = row.type,
    m.title = row.title,
    m.summary = row.summary,
    m.content = row.content,
    m.tags = row.tags,
    m.tags_text = row.tags_text,
    m.text_sha256 = row.text_sha256,
    m.score = row.score,
    m.metadata_json = row.metadata_json,
    m.session_id = row.session_id,
    m.size_bytes = row.size_bytes,
    m.updated_at = $now,
    m.vector_store = $vector_store,
    m.vector_state = CASE WHEN NOT changed AND m.vector_state = 'ok' THEN 'ok' ELSE 'pending' END,
    m.content_hash = row.content_hash
REMOVE m:UnnamedStorage
FOREACH (flip IN CASE WHEN row.restore IS NOT NULL
                       AND (m.superseded_by IS NULL) <> (row.restore.superseded_by IS NULL)
                  THEN [true] ELSE [] END |
  SET m.vector_state = 'pending', m.context_state = 'pending',
      m.context_seq = coalesce(m.context_seq, 0) + 1,
      m.context_since = coalesce(m.context_since, timestamp()))
FOREACH (r IN CASE WHEN row.restore IS NULL THEN [] ELSE [row.restore] END |
  SET m.created_at = r.created_at, m.updated_at = r.updated_at, m.accessed_at = r.accessed_at,
      m.access_count = r.access_count, m.superseded_by = r.superseded_by,
      m.superseded_at = r.superseded_at)
WITH m, row, sessions, sessions_before, changed, created, old_size
CALL (m, changed) {
  WITH m WHERE changed
  SET m.context_state = 'pending', m.context_seq = coalesce(m.context_seq, 0) + 1,
      m.context_since = coalesce(m.context_since, timestamp())
  WITH m
  // @include mark_text_readers
}
WITH sessions, sessions_before,
     collect({id: row.id, pending: m.vector_state STARTS WITH 'pending',
              superseded: m.superseded_by IS NOT NULL}) AS saved,
     sum(CASE WHEN created THEN 1 ELSE 0 END) AS added, sum(m.size_bytes - old_size) AS grown
CALL (sessions) {
  // @include sessions_present
  RETURN count(session) AS sessions_after
}
MERGE (s:NamespaceStats {namespace: $namespace})
SET s.memories = coalesce(s.memories, 0) + added,
    s.size_bytes = coalesce(s.size_bytes, 0) + grown,
    s.links = coalesce(s.links, 0),
    s.sessions = coalesce(s.sessions, 0) + sessions_after - sessions_before,
    s.graph_version = randomUUID()
WITH saved, s.size_bytes + 64 * s.links AS db_size_bytes
UNWIND saved AS one
RETURN one.id AS id, one.pending AS vector_pending, one.superseded AS superseded, db_size_bytes
