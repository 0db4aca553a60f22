// Create or update LINK edges of a batch of saves in one namespace (link_upsert with a source
// per row); new ones are counted once in the namespace's counters.
// @include lock_namespace
UNWIND $links AS link
MATCH (source:Memory {id: link.source_id})
MATCH (target:Memory {id: link.target_id})
MERGE (source)-[r:LINK {type: link.type}]->(target)
ON CREATE SET r.created_at = $now, r.seq = link.seq, r._created = true
SET r.weight = link.weight, r.term = link.term,
    source.context_state = 'pending', source.context_seq = coalesce(source.context_seq, 0) + 1,
    source.context_since = coalesce(source.context_since, timestamp()),
    target.context_state = 'pending', target.context_seq = coalesce(target.context_seq, 0) + 1,
    target.context_since = coalesce(target.context_since, timestamp())
// Counted by the MERGE that created it: concurrent saves of one link count it once.
WITH source, target, r, link, r._created IS NOT NULL AS created
REMOVE r._created
WITH source, target, r, created
// @include mark_link_readers
WITH count(r) AS linked, sum(CASE WHEN created THEN 1 ELSE 0 END) AS added
MERGE (s:NamespaceStats {namespace: $namespace})
SET s.links = coalesce(s.links, 0) + added, s.graph_version = randomUUID()
RETURN linked, s.size_bytes + 64 * s.links AS db_size_bytes
