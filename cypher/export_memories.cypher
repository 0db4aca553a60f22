// One page of a namespace's memories for export, in (created_at, id) order after the last one
// of the previous page (a seek of the (namespace, created_at) index), with every stored field.
MATCH (m:Memory)
WHERE m.namespace = $namespace
  AND ($after_created IS NULL OR m.created_at > $after_created
       OR (m.created_at = $after_created AND m.id > $after_id))
WITH m ORDER BY m.created_at, m.id LIMIT $limit
RETURN m {.id, .key, .type, .title, .summary, .content, .tags, .score, .metadata_json,
          .session_id, .created_at, .updated_at, .accessed_at, .access_count, .superseded_by,
          .superseded_at} AS memory
