// How many memories wait for their context representation (index seek).
MATCH (m:Memory)
WHERE m.context_state = 'pending'
RETURN count(m) AS backlog
