// memory_timeline: ids of up to $window memories before and after the anchor in
// (created_at, id) order, nearest first. Each side first finds how far back (or ahead) its
// $window nearest timestamps reach, seeking the (namespace, created_at) index in order and
// stopping there, then takes every memory between that timestamp and the anchor's (ties
// included). Every step seeks that index (a hint: with a LIMIT the planner may prefer scanning
// the whole index in order, through other namespaces), sorted on both of its properties so that
// the seek gives the order.
MATCH (a:Memory {id: $anchor_id})
WHERE a.namespace = $namespace
CALL (a) {
  MATCH (m:Memory)
  USING INDEX SEEK m:Memory(namespace, created_at)
  WHERE m.namespace = $namespace AND m.created_at < a.created_at
  WITH m.created_at AS at ORDER BY m.namespace DESC, m.created_at DESC LIMIT $window
  RETURN min(at) AS earliest
}
CALL (a) {
  MATCH (m:Memory)
  USING INDEX SEEK m:Memory(namespace, created_at)
  WHERE m.namespace = $namespace AND m.created_at > a.created_at
  WITH m.created_at AS at ORDER BY m.namespace ASC, m.created_at ASC LIMIT $window
  RETURN max(at) AS latest
}
CALL (a, earliest) {
  MATCH (m:Memory)
  USING INDEX SEEK m:Memory(namespace, created_at)
  WHERE m.namespace = $namespace
    AND m.created_at >= coalesce(earliest, a.created_at) AND m.created_at <= a.created_at
    AND (m.created_at < a.created_at OR m.id < a.id)
  WITH m ORDER BY m.created_at DESC, m.id DESC LIMIT $window
  RETURN collect(m.id) AS before
}
CALL (a, latest) {
  MATCH (m:Memory)
  USING INDEX SEEK m:Memory(namespace, created_at)
  WHERE m.namespace = $namespace
    AND m.created_at >= a.created_at AND m.created_at <= coalesce(latest, a.created_at)
    AND (m.created_at > a.created_at OR m.id > a.id)
  WITH m ORDER BY m.created_at ASC, m.id ASC LIMIT $window
  RETURN collect(m.id) AS after
}
RETURN a.id AS anchor, before, after
