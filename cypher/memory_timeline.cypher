// memory_timeline: ids of up to $window memories before and after the anchor in
// (created_at, id) order, nearest first, each side one bounded seek of the
// (namespace, created_at) index.
MATCH (a:Memory {id: $anchor_id})
WHERE a.namespace = $namespace
CALL (a) {
  MATCH (m:Memory)
  WHERE m.namespace = $namespace AND m.created_at <= a.created_at
    AND (m.created_at < a.created_at OR m.id < a.id)
  WITH m ORDER BY m.created_at DESC, m.id DESC LIMIT $window
  RETURN collect(m.id) AS before
}
CALL (a) {
  MATCH (m:Memory)
  WHERE m.namespace = $namespace AND m.created_at >= a.created_at
    AND (m.created_at > a.created_at OR m.id > a.id)
  WITH m ORDER BY m.created_at ASC, m.id ASC LIMIT $window
  RETURN collect(m.id) AS after
}
RETURN a.id AS anchor, before, after
