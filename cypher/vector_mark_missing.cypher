// Full reconcile: memories whose vector is not among $ids go back to pending.
MATCH (m:Memory)
WHERE m.vector_state = 'ok' AND NOT m.id IN $ids
SET m.vector_state = 'pending'
RETURN count(m) AS marked
