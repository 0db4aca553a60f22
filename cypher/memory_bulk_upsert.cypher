// Bulk import: create or update many memories of one namespace; vectors pending until written,
// contexts pending with every context that reads them (as memory_upsert).
// @include lock_namespace
UNWIND $rows AS row
MERGE (m:Memory {namespace: $namespace, key: row.key})
ON CREATE SET m.id = row.id, m.created_at = row.created_at, m.accessed_at = row.created_at,
              m.access_count = 0
WITH m, row, m.size_bytes IS NULL AS created, coalesce(m.size_bytes, 0) AS old_size
SET m.type = row.type,
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
    m.vector_state = 'pending',
    m.context_state = 'pending',
    m.context_seq = coalesce(m.context_seq, 0) + 1,
    m.content_hash = row.content_hash
WITH m, row, created, old_size
CALL (m) {
  // @include mark_text_readers
}
CALL (m, created, old_size) {
  MERGE (s:NamespaceStats {namespace: $namespace})
  SET s.memories = coalesce(s.memories, 0) + CASE WHEN created THEN 1 ELSE 0 END,
      s.size_bytes = coalesce(s.size_bytes, 0) + m.size_bytes - old_size,
      s.links = coalesce(s.links, 0)
}
RETURN row.key AS key, m.id AS id, m.created_at.epochMillis AS created_ms,
       m.superseded_by IS NOT NULL AS superseded
