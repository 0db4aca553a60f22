// Key-value channel: keys equal to the query (1.0) or starting with it (0.9), and query tokens
// equal to a key (1.0); index seeks on (namespace, key). A blank query is no key's prefix.
MATCH (m:Memory {namespace: $namespace})
WHERE $query <> '' AND m.key STARTS WITH $query AND
  // @include memory_filter
RETURN m.id AS id, CASE WHEN m.key = $query THEN 1.0 ELSE 0.9 END AS score,
       m.created_at.epochMillis AS created_ms
ORDER BY score DESC, m.key
LIMIT $limit
UNION
UNWIND $tokens AS token
MATCH (m:Memory {namespace: $namespace, key: token})
WHERE
  // @include memory_filter
RETURN m.id AS id, 1.0 AS score, m.created_at.epochMillis AS created_ms
ORDER BY score DESC
LIMIT $limit
