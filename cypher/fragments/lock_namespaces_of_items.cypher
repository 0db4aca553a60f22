// The locks of the namespaces of the memories $items name (by id), one after another in order,
// before any memory's: as every write of a namespace takes its lock first (lock_namespace),
// a statement that marks memories of several namespaces never deadlocks with a save.
CALL () {
  UNWIND $items AS item
  MATCH (m:Memory {id: item.id})
  WITH DISTINCT m.namespace AS namespace
  ORDER BY namespace
  MATCH (namespace_lock:NamespaceStats {namespace: namespace})
  SET namespace_lock._lock = true
  REMOVE namespace_lock._lock
  RETURN count(*) AS locked
}
