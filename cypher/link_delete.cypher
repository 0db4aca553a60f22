// Remove one LINK edge; the namespace's link counter follows.
// @include lock_namespace
MATCH (source:Memory {id: $source_id})-[r:LINK {type: $type}]->(target:Memory {id: $target_id})
DELETE r
SET source.context_state = 'pending', source.context_seq = coalesce(source.context_seq, 0) + 1,
    source.context_since = coalesce(source.context_since, timestamp()),
    target.context_state = 'pending', target.context_seq = coalesce(target.context_seq, 0) + 1,
    target.context_since = coalesce(target.context_since, timestamp())
WITH source, target
// @include mark_link_readers
WITH source, count(*) AS removed
CALL (source, removed) {
  MERGE (s:NamespaceStats {namespace: $namespace})
  SET s.links = coalesce(s.links, 0) - removed, s.graph_version = randomUUID()
}
RETURN removed
