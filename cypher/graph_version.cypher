// The namespace's graph_version (moved by every write of a memory's walk fields or of a LINK)
// and its sizes: whether an in-process link graph snapshot of it is current
// (service/stores/link_graph.py), and how big a new one would be.
OPTIONAL MATCH (s:NamespaceStats {namespace: $namespace})
RETURN coalesce(s.graph_version, 0) AS version, coalesce(s.memories, 0) AS memories,
       coalesce(s.links, 0) AS links
