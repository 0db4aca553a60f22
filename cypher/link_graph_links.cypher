// Every LINK edge of the namespace with its weight, for an in-process link graph snapshot
// (service/stores/link_graph.py).
MATCH (a:Memory)-[r:LINK]->(b:Memory)
WHERE a.namespace = $namespace AND b.namespace = $namespace
RETURN collect([a.id, b.id, r.weight]) AS links
