// Delete memories with their links and leave a tombstone for their vectors.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.namespace = $namespace
MERGE (t:VectorTombstone {id: m.id})
SET t.namespace = m.namespace, t.created_at = $now
WITH m, m.id AS id, m.key AS key
CALL (m) {
  OPTIONAL MATCH (m)-[:LINK]-(n:Memory)
  WHERE n.id <> m.id
  FOREACH (x IN CASE WHEN n IS NULL THEN [] ELSE [n] END |
    SET x.context_state = 'pending', x.context_seq = coalesce(x.context_seq, 0) + 1)
}
DETACH DELETE m
RETURN id, key
