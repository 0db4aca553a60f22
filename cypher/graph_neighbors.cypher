// One breadth-first step over LINK in both directions from the frontier (index seek by id),
// with what ranking and filtering need of each neighbour.
UNWIND $frontier AS from_id
MATCH (a:Memory {id: from_id})-[:LINK]-(b:Memory)
WHERE b.namespace = $namespace
WITH DISTINCT from_id, b
RETURN from_id, b.id AS id, b.key AS key, b.type AS type, b.tags AS tags, b.score AS score,
       b.created_at.epochMillis AS created_ms
ORDER BY from_id, key
LIMIT $limit
