// Isolation check: nodes and relationships outside namespace $namespace (all of them when it is
// ''), and relationships that join memories of two namespaces (always 0). The context indexer's
// leases (ContextClaim, each alive while one memory's context is refreshed) are not counted.
CALL () {
  MATCH (n) WHERE coalesce(n.namespace, '') <> $namespace AND NOT n:ContextClaim
  RETURN count(n) AS nodes
}
CALL () {
  MATCH (a)-[r]->(b)
  WHERE coalesce(a.namespace, '') <> $namespace OR coalesce(b.namespace, '') <> $namespace
  RETURN count(r) AS relationships
}
CALL () {
  MATCH (a:Memory)-[r]->(b:Memory) WHERE a.namespace <> b.namespace
  RETURN count(r) AS cross_namespace_links
}
RETURN nodes, relationships, cross_namespace_links
