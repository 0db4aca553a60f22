// Isolation check: how many nodes and relationships the database holds, and how many
// relationships join memories of two namespaces (always 0: the service never writes one).
CALL () { MATCH (n) RETURN count(n) AS nodes }
CALL () { MATCH ()-[r]->() RETURN count(r) AS relationships }
CALL () {
  MATCH (a:Memory)-[r]->(b:Memory)
  WHERE a.namespace <> b.namespace
  RETURN count(r) AS cross_namespace_links
}
RETURN nodes, relationships, cross_namespace_links
