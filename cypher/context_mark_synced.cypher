// Store refreshed context texts, of the memories not marked again since the refresh read them
// (their context_seq unchanged); a memory marked again meanwhile keeps its state and its text,
// so a slow refresh never undoes a newer one.
UNWIND $items AS item
MATCH (m:Memory {id: item.id})
WHERE m.context_seq = item.seq
SET m.context_text = item.text, m.context_state = 'ok'
RETURN count(m) AS synced
