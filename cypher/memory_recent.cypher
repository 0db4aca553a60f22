// memory_recent: the namespace's $limit most recent memories (created_at, then id, newest
// first), read along the created_at index; what MCP resources/list offers.
MATCH (m:Memory)
USING INDEX m:Memory(created_at)
WHERE m.created_at IS NOT NULL AND m.namespace = $namespace
RETURN m.key AS key, m.title AS title, m.summary AS summary, m.type AS type
ORDER BY m.created_at DESC, m.id DESC
LIMIT $limit
