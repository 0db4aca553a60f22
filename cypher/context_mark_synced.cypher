// Store refreshed context texts, of the memories not marked again since the refresh read them
// (their context_seq unchanged); a memory marked again meanwhile keeps its state and its text,
// so a slow refresh never undoes a newer one.
// Locks are taken in id order, so that two such batches never wait on each other (deadlock).
UNWIND $items AS item
WITH item ORDER BY item.id
MATCH (m:Memory {id: item.id})
WHERE m.context_seq = item.seq
SET m.context_text = item.text, m.context_state = 'ok'
RETURN count(m) AS synced
