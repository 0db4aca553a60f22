// memory_get's access tracking: bump accessed_at and access_count, return the new values.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.namespace = $namespace
SET m.accessed_at = $now, m.access_count = coalesce(m.access_count, 0) + 1
RETURN m.id AS id, m.accessed_at AS accessed_at, m.access_count AS access_count
