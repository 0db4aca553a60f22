// memory_timeline: ids of up to $window memories before and after the anchor in
// (created_at, id) order, nearest first. Each side first finds how far back (or ahead) its
// $window nearest timestamps reach, reading the created_at index in order and stopping there,
// then takes every memory between that timestamp and the anchor's (ties included).
MATCH (a:Memory {id: $anchor_id})
WHERE a.namespace = $namespace
CALL (a) {
  MATCH (m:Memory)
  USING INDEX m:Memory(created_at)
  WHERE m.created_at < a.created_at AND m.namespace = $namespace
  WITH m.created_at AS at ORDER BY m.created_at DESC LIMIT $window
  RETURN min(at) AS earliest
}
CALL (a) {
  MATCH (m:Memory)
  USING INDEX m:Memory(created_at)
  WHERE m.created_at > a.created_at AND m.namespace = $namespace
  WITH m.created_at AS at ORDER BY m.created_at ASC LIMIT $window
  RETURN max(at) AS latest
}
CALL (a, earliest) {
  MATCH (m:Memory)
  WHERE m.namespace = $namespace
    AND m.created_at >= coalesce(earliest, a.created_at) AND m.created_at <= a.created_at
    AND (m.created_at < a.created_at OR m.id < a.id)
  WITH m ORDER BY m.created_at DESC, m.id DESC LIMIT $window
  RETURN collect(m.id) AS before
}
CALL (a, latest) {
  MATCH (m:Memory)
  WHERE m.namespace = $namespace
    AND m.created_at >= a.created_at AND m.created_at <= coalesce(latest, a.created_at)
    AND (m.created_at > a.created_at OR m.id > a.id)
  WITH m ORDER BY m.created_at ASC, m.id ASC LIMIT $window
  RETURN collect(m.id) AS after
}
RETURN a.id AS anchor, before, after
