// Bulk import: LINK edges between memories of one namespace named by key.
// @include lock_namespace
UNWIND $links AS link
MATCH (source:Memory {namespace: $namespace, key: link.source})
MATCH (target:Memory {namespace: $namespace, key: link.target})
MERGE (source)-[r:LINK {type: link.type}]->(target)
ON CREATE SET r.created_at = $now, r.seq = link.seq, r._created = true
SET r.weight = link.weight, r.term = link.term,
    source.context_state = 'pending', source.context_seq = coalesce(source.context_seq, 0) + 1,
    target.context_state = 'pending', target.context_seq = coalesce(target.context_seq, 0) + 1
// Counted by the MERGE that created it: concurrent saves of one link count it once.
WITH source, target, r, link, r._created IS NOT NULL AS created
REMOVE r._created
WITH source, target, r, created
// @include mark_link_readers
WITH source, count(r) AS linked, sum(CASE WHEN created THEN 1 ELSE 0 END) AS added
CALL (source, added) {
  MERGE (s:NamespaceStats {namespace: source.namespace})
  SET s.links = coalesce(s.links, 0) + added
}
RETURN sum(linked) AS linked
