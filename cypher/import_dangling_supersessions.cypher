// After an import: the imported memories whose superseded_by names no memory of the namespace
// (its line failed, or was never in the file) are current; their vectors are marked pending until
// both collections drop the superseded flag, and their contexts are refreshed.
// The namespace's graph_version moves (link graph snapshots are stale).
CALL () {
  MATCH (stats:NamespaceStats {namespace: $namespace})
  SET stats.graph_version = randomUUID()
}
UNWIND $ids AS memory_id
MATCH (old:Memory {id: memory_id})
WHERE old.namespace = $namespace AND old.superseded_by IS NOT NULL
  AND NOT EXISTS { MATCH (new:Memory {id: old.superseded_by}) WHERE new.namespace = $namespace }
WITH old, old.superseded_by AS named, old.vector_state = 'ok' AS was_synced
REMOVE old.superseded_by, old.superseded_at
SET old.vector_state = 'pending', old.context_state = 'pending',
    old.context_seq = coalesce(old.context_seq, 0) + 1,
    old.context_since = coalesce(old.context_since, timestamp())
RETURN old.id AS id, old.content_hash AS content_hash, was_synced, named
