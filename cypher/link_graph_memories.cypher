// Every memory of the namespace with what the graph walk returns of it (graph_walk), for an
// in-process link graph snapshot (service/stores/link_graph.py).
MATCH (m:Memory)
WHERE m.namespace = $namespace
RETURN collect([m.id, m.key, m.type, m.tags, m.score, m.created_at.epochMillis,
                m.superseded_by IS NOT NULL]) AS memories
