// Memories of a namespace named by id ($ids, in any case: ids are stored in lower case) or by
// key ($keys, exactly); index seeks on both branches.
UNWIND $ids AS ref
MATCH (m:Memory {id: toLower(ref)})
WHERE m.namespace = $namespace
RETURN ref, m.id AS id, m.key AS key
UNION
UNWIND $keys AS ref
MATCH (m:Memory {namespace: $namespace, key: ref})
RETURN ref, m.id AS id, m.key AS key
