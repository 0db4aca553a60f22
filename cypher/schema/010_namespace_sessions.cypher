// The sessions of each namespace as a counter of its NamespaceStats (memory_stats no longer
// counts them), kept by the statements that save and delete memories; backfilled here once.
MATCH (s:NamespaceStats) SET s.sessions = 0;
MATCH (m:Memory) WHERE m.session_id IS NOT NULL WITH m.namespace AS ns, count(DISTINCT m.session_id) AS n MERGE (s:NamespaceStats {namespace: ns}) SET s.sessions = n
