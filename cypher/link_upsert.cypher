// Create or update LINK edges from one memory (one per source, target and type); new ones are
// counted in the namespace's counters.
MATCH (source:Memory {id: $source_id})
UNWIND $links AS link
MATCH (target:Memory {id: link.target_id})
OPTIONAL MATCH (source)-[old:LINK {type: link.type}]->(target)
WITH source, target, link, old IS NULL AS created
MERGE (source)-[r:LINK {type: link.type}]->(target)
ON CREATE SET r.created_at = $now, r.seq = link.seq
SET r.weight = link.weight, r.term = link.term,
    source.context_state = 'pending', source.context_seq = coalesce(source.context_seq, 0) + 1,
    target.context_state = 'pending', target.context_seq = coalesce(target.context_seq, 0) + 1
WITH source, count(r) AS linked, sum(CASE WHEN created THEN 1 ELSE 0 END) AS added
CALL (source, added) {
  MERGE (s:NamespaceStats {namespace: source.namespace})
  SET s.links = coalesce(s.links, 0) + added
}
RETURN sum(linked) AS linked
