// The memory a partial update changes (by key, else by id in any case), write-locked before it
// is read: concurrent updates of one memory run one after another, each reading what the one
// before it committed, so none overwrites another's fields with what it read before. One
// deleted while this waited for its lock reads without properties: not found.
// @include lock_namespace
CALL () {
  MATCH (m:Memory {namespace: $namespace, key: $ref})
  RETURN m, 0 AS rank
  UNION
  MATCH (m:Memory {id: toLower($ref)})
  WHERE m.namespace = $namespace
  RETURN m, 1 AS rank
}
WITH m
ORDER BY rank
LIMIT 1
SET m._lock = true
REMOVE m._lock
WITH m
WHERE m.id IS NOT NULL
RETURN m.id AS id
