// Delete memories with their links and leave a tombstone for their vectors.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.namespace = $namespace
MERGE (t:VectorTombstone {id: m.id})
SET t.namespace = m.namespace, t.created_at = $now
WITH m, m.id AS id, m.key AS key
DETACH DELETE m
RETURN id, key
