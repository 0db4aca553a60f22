// Full reconcile: memories whose context vector is not among $ids go back to pending.
MATCH (m:Memory)
WHERE m.context_state = 'ok' AND NOT m.id IN $ids
SET m.context_state = 'pending', m.context_seq = coalesce(m.context_seq, 0) + 1
RETURN count(m) AS marked
