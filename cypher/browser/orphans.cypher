// Memories of $namespace with no link at all (LINK or SUPERSEDES, either direction), least
// recently used first: candidates to link, or to let cleanup evict.
MATCH (m:Memory {namespace: $namespace})
WHERE NOT (m)-[:LINK|SUPERSEDES]-()
RETURN m.key AS key, m.type AS type, m.title AS title, m.accessed_at AS accessed_at
ORDER BY accessed_at, key
LIMIT 100
