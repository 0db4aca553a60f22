// Key-value channel: keys equal to the query (1.0) or starting with it (0.9), and query tokens
// equal to a key (1.0); index seeks on (namespace, key). A blank query is no key's prefix.
MATCH (m:Memory {namespace: $namespace})
WHERE $query <> '' AND m.key STARTS WITH $query
  AND ($types IS NULL OR m.type IN $types)
  AND all(tag IN $tags WHERE tag IN m.tags)
  AND ($created_from IS NULL OR m.created_at >= $created_from)
  AND ($created_to IS NULL OR m.created_at <= $created_to)
  AND ($min_score IS NULL OR coalesce(m.score, 50.0) >= $min_score)
  AND ($include_superseded OR m.superseded_by IS NULL)
RETURN m.id AS id, CASE WHEN m.key = $query THEN 1.0 ELSE 0.9 END AS score,
       m.created_at.epochMillis AS created_ms
ORDER BY score DESC, m.key
LIMIT $limit
UNION
UNWIND $tokens AS token
MATCH (m:Memory {namespace: $namespace, key: token})
WHERE ($types IS NULL OR m.type IN $types)
  AND all(tag IN $tags WHERE tag IN m.tags)
  AND ($created_from IS NULL OR m.created_at >= $created_from)
  AND ($created_to IS NULL OR m.created_at <= $created_to)
  AND ($min_score IS NULL OR coalesce(m.score, 50.0) >= $min_score)
  AND ($include_superseded OR m.superseded_by IS NULL)
RETURN m.id AS id, 1.0 AS score, m.created_at.epochMillis AS created_ms
ORDER BY score DESC
LIMIT $limit
