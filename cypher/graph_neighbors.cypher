// One breadth-first step over LINK in both directions from the frontier (index seek by id).
UNWIND $frontier AS from_id
MATCH (a:Memory {id: from_id})-[:LINK]-(b:Memory)
WHERE b.namespace = $namespace
RETURN DISTINCT from_id, b.id AS id, b.key AS key
ORDER BY from_id, key
LIMIT $limit
