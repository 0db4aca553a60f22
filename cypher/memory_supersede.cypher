// Each row's new memory supersedes its old ones (same namespace): each old memory gets
// superseded_by and superseded_at, one SUPERSEDES relationship (from its current superseder
// only) records it, and a memory that was not superseded before has its vector marked pending
// until both vector collections carry the superseded flag, and its context marked for refresh (so
// that a refresh which read it before this commit cannot leave the old flag on its context
// vector); the namespace's graph_version moves (link graph snapshots of it are stale). Rows: the
// memories newly flagged, with `was_synced` false when their vector was already pending for
// another write.
UNWIND $rows AS row
MATCH (new:Memory {id: row.id})
UNWIND row.old_ids AS old_id
MATCH (old:Memory {id: old_id})
WHERE old.namespace = new.namespace AND old.id <> new.id
OPTIONAL MATCH (other:Memory)-[stale:SUPERSEDES]->(old)
WHERE other.id <> new.id
DELETE stale
WITH DISTINCT new, old, old.superseded_by IS NULL AS flagged, old.vector_state = 'ok' AS was_synced,
     CASE WHEN old.superseded_by = new.id THEN old.superseded_at ELSE $now END AS at
MERGE (new)-[s:SUPERSEDES]->(old)
ON CREATE SET s.created_at = $now
SET old.superseded_by = new.id, old.superseded_at = at
WITH new, old, flagged, was_synced
CALL (new) {
  MATCH (stats:NamespaceStats {namespace: new.namespace})
  SET stats.graph_version = randomUUID()
}
FOREACH (x IN CASE WHEN flagged THEN [old] ELSE [] END |
  SET x.vector_state = 'pending', x.context_state = 'pending',
      x.context_seq = coalesce(x.context_seq, 0) + 1,
      x.context_since = coalesce(x.context_since, timestamp()))
WITH old, flagged, was_synced WHERE flagged
RETURN old.id AS id, old.content_hash AS content_hash, was_synced
