// Store refreshed context texts; a memory marked again meanwhile stays pending.
UNWIND $items AS item
MATCH (m:Memory {id: item.id})
SET m.context_text = item.text,
    m.context_state = CASE WHEN m.context_seq = item.seq THEN 'ok' ELSE 'pending' END
RETURN count(m) AS synced
