// Every write of a namespace takes the namespace's lock (its NamespaceStats node) before it
// reads or locks any memory: writes of one namespace queue on it rather than deadlock on each
// other's memories, and none sees a memory another one is deleting. Each held it to its commit
// anyway, as it updates the counters. The node is MERGEd only when missing: a MERGE of one
// that exists takes an index-entry lock before the node's, and two of those deadlock.
CALL () {
  OPTIONAL MATCH (existing:NamespaceStats {namespace: $namespace})
  WITH existing
  WHERE existing IS NULL
  MERGE (:NamespaceStats {namespace: $namespace})
}
MATCH (namespace_lock:NamespaceStats {namespace: $namespace})
SET namespace_lock._lock = true
REMOVE namespace_lock._lock
WITH *
