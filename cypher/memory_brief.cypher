// The fields retrieve_context ranks and filters on, for candidate ids.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.namespace = $namespace
RETURN m.id AS id, m.key AS key, m.type AS type, m.tags AS tags, m.score AS score,
       m.created_at.epochMillis AS created_ms
