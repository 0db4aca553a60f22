// memory_cleanup: the next $limit evictable memories in LRU order (accessed_at, created_at, id)
// after the cursor, with their size and the ids at the other end of each of their links
// (self-links once), so the caller can count every removed link exactly once; `seen` tells the
// delete whether the memory was read or saved since.
MATCH (m:Memory)
WHERE m.namespace = $namespace AND m.accessed_at >= $after_accessed
  AND NOT m.type IN $protected AND NOT m.id IN $keep
  AND (m.accessed_at > $after_accessed OR m.created_at > $after_created
       OR (m.created_at = $after_created AND m.id > $after_id))
WITH m ORDER BY m.accessed_at ASC, m.created_at ASC, m.id ASC LIMIT $limit
RETURN m.id AS id, m.accessed_at AS accessed_at, m.created_at AS created_at,
       [m.accessed_at.epochMillis, m.updated_at.epochMillis] AS seen,
       coalesce(m.size_bytes, 0) AS size_bytes,
       [(m)-[:LINK]->(o:Memory) | o.id] + [(m)<-[:LINK]-(o:Memory) WHERE o <> m | o.id] AS others
