// The context backlog (of one namespace, or of all when $namespace is null) of the vector
// storage $vector_store (all when null): memories whose context is stale (pending) or whose
// context vector is still the mean of stored ones (approximate), and since when the oldest of
// them has waited (ms by Neo4j's clock; index seeks).
CALL () {
  MATCH (m:Memory)
  WHERE m.context_state = 'pending' AND ($namespace IS NULL OR m.namespace = $namespace)
    AND ($vector_store IS NULL OR coalesce(m.vector_store, $vector_store) = $vector_store)
  RETURN count(m) AS pending, min(m.context_since) AS pending_since
}
CALL () {
  MATCH (m:Memory)
  WHERE m.context_state = 'approximate' AND ($namespace IS NULL OR m.namespace = $namespace)
    AND ($vector_store IS NULL OR coalesce(m.vector_store, $vector_store) = $vector_store)
  RETURN count(m) AS approximate, min(m.context_since) AS approximate_since
}
WITH pending, approximate,
     CASE WHEN pending_since IS NULL OR approximate_since < pending_since
          THEN approximate_since ELSE pending_since END AS oldest_since
RETURN pending + approximate AS backlog, pending, approximate,
       CASE WHEN oldest_since IS NULL THEN 0 ELSE timestamp() - oldest_since END AS oldest_wait_ms
