// Near-duplicates of a saved memory: the vector engine's nearest ids that still exist and are
// current, and up to $limit current memories with the same content hash (index seek).
CALL () {
  UNWIND $ids AS id
  MATCH (m:Memory {id: id})
  WHERE m.namespace = $namespace AND m.superseded_by IS NULL
  RETURN m
  UNION
  MATCH (m:Memory {namespace: $namespace, text_sha256: $text_sha256})
  WHERE m.id <> $id AND m.superseded_by IS NULL
  WITH m ORDER BY m.created_at DESC LIMIT $limit
  RETURN m
}
WITH DISTINCT m
WHERE m.id <> $id
RETURN m.id AS id, m.key AS key, m.text_sha256 = $text_sha256 AS same_text
