// Memories whose context representation is stale, with their own text and their strongest
// neighbours' (LINK in either direction; by weight, then newest), for the context indexer.
MATCH (m:Memory)
WHERE m.context_state = 'pending'
WITH m
LIMIT $limit
CALL (m) {
  OPTIONAL MATCH (m)-[r:LINK]-(n:Memory)
  WHERE n.namespace = m.namespace
  WITH n, max(r.weight) AS weight
  ORDER BY weight DESC, n.created_at DESC, n.id
  LIMIT $neighbours
  RETURN collect([n.created_at.epochMillis, coalesce(n.title, ''), n.content, n.id]) AS neighbours
}
RETURN m.id AS id, m.namespace AS namespace, m.key AS key, m.type AS type, m.tags AS tags,
       m.score AS score, m.created_at AS created_at, m.superseded_by AS superseded_by, coalesce(m.title, '') AS title,
       m.content AS content, m.context_seq AS seq,
       [n IN neighbours WHERE n[0] IS NOT NULL] AS neighbours
