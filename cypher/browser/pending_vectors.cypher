// Memories whose vector write is not confirmed yet (reconcile finishes them).
MATCH (m:Memory) WHERE m.vector_state STARTS WITH 'pending'
RETURN m.namespace AS namespace, m.key AS key, m.updated_at AS updated_at
ORDER BY updated_at
LIMIT 100
