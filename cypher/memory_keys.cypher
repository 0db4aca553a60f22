// Keys of memories by id (paths of the graph channel).
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.namespace = $namespace
RETURN m.id AS id, m.key AS key
