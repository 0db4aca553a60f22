// The graph walk's first two breadth-first steps in one round trip: the seeds' keys, every
// neighbour of the seeds (LINK in either direction), and, when $two_hops, the neighbours of
// the memories those reached; each neighbour as graph_neighbors returns it. With $min_value
// set, a second-step neighbour comes back only when it is in $keep or its best path value
// (seed relevance from $relevance × the link weights, 0.5 for a link without one) reaches
// $min_value: the others cannot rank.
UNWIND $seeds AS seed_id
MATCH (s:Memory {id: seed_id})
WHERE s.namespace = $namespace
WITH collect(s) AS seeds
CALL (seeds) {
  UNWIND seeds AS a
  MATCH (a)-[r:LINK]-(b:Memory)
  WHERE b.namespace = $namespace
  WITH a.id AS from_id, b, max(r.weight) AS weight
  ORDER BY from_id, b.key
  LIMIT $limit
  RETURN collect([from_id, b.id, b.key, b.type, b.tags, b.score, b.created_at.epochMillis, weight,
                  b.superseded_by IS NOT NULL]) AS first
}
CALL (seeds, first) {
  WITH [s IN seeds | s.id] AS seed_ids, first
  WHERE $two_hops
  UNWIND first AS step
  WITH step[1] AS id, max($relevance[step[0]] * coalesce(step[7], 0.5)) AS value, seed_ids
  WHERE NOT id IN seed_ids
  MATCH (a:Memory {id: id})-[r:LINK]-(b:Memory)
  WHERE b.namespace = $namespace
  WITH a.id AS from_id, b, max(r.weight) AS weight, value
  WHERE $min_value IS NULL OR b.id IN $keep OR value * coalesce(weight, 0.5) >= $min_value
  ORDER BY from_id, b.key
  LIMIT $limit_two
  RETURN collect([from_id, b.id, b.key, b.type, b.tags, b.score, b.created_at.epochMillis, weight,
                  b.superseded_by IS NOT NULL]) AS second
}
RETURN [s IN seeds | [s.id, s.key]] AS seeds, first, second
