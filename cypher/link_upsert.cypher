// Create or update LINK edges from one memory (one per source, target and type).
MATCH (source:Memory {id: $source_id})
UNWIND $links AS link
MATCH (target:Memory {id: link.target_id})
MERGE (source)-[r:LINK {type: link.type}]->(target)
ON CREATE SET r.created_at = $now, r.seq = link.seq
SET r.weight = link.weight, r.term = link.term,
    source.context_state = 'pending', source.context_seq = coalesce(source.context_seq, 0) + 1,
    target.context_state = 'pending', target.context_seq = coalesce(target.context_seq, 0) + 1
RETURN count(r) AS linked
