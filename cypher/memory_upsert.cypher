// Create or update one memory; vector_state is pending until Qdrant has its vector.
MERGE (m:Memory {id: $id})
ON CREATE SET m.created_at = $created_at, m.accessed_at = $created_at, m.access_count = 0
SET m.namespace = $namespace,
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
    m.size_bytes = $size_bytes,
    m.updated_at = $now,
    m.vector_state = CASE WHEN m.content_hash = $content_hash AND m.vector_state = 'ok' THEN 'ok' ELSE 'pending' END,
    m.content_hash = $content_hash
RETURN m.vector_state = 'pending' AS vector_pending
