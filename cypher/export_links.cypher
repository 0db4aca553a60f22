// The outgoing LINK edges of a page of exported memories, each source's in creation order.
UNWIND $ids AS id
MATCH (m:Memory {id: id})-[r:LINK]->(t:Memory)
WHERE t.namespace = m.namespace
WITH id, r, t ORDER BY r.seq, t.key
RETURN id AS source_id, collect([t.id, r.type, r.weight, r.term, r.created_at, r.seq]) AS links
