// The namespace's graph version, a token every write of a memory's walk fields or of a LINK
// replaces, with the counters (writers that leave the token alone still move them): whether an
// in-process link graph snapshot of it is current (service/stores/link_graph.py), and how big a
// new one would be.
OPTIONAL MATCH (s:NamespaceStats {namespace: $namespace})
WITH coalesce(s.graph_version, '') AS version, coalesce(s.memories, 0) AS memories,
     coalesce(s.links, 0) AS links, coalesce(s.size_bytes, 0) AS size_bytes
