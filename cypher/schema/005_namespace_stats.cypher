// Per-namespace counters for memory_stats and cleanup (memories, size_bytes, links), kept by
// every statement that creates or deletes memories or links; backfilled here once.
CREATE CONSTRAINT namespace_stats_unique IF NOT EXISTS FOR (s:NamespaceStats) REQUIRE s.namespace IS UNIQUE;
CREATE INDEX memory_namespace_session IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.session_id);
MATCH (m:Memory) WITH m.namespace AS ns, count(m) AS n, sum(coalesce(m.size_bytes, 0)) AS bytes MERGE (s:NamespaceStats {namespace: ns}) SET s.memories = n, s.size_bytes = bytes, s.links = 0;
MATCH (m:Memory)-[r:LINK]->(:Memory) WITH m.namespace AS ns, count(r) AS n MATCH (s:NamespaceStats {namespace: ns}) SET s.links = n
