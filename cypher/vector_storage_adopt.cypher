// Up to $limit memories of the vector storage $storage move to $vector_store: their vectors and
// contextual vectors are pending there, for the reconcile that follows to write (after a change of
// embedding model, the memories of the old model's collection). Their content hash stays that of
// the old model, so a later save of the same text embeds it again (the hash includes the model).
MATCH (m:Memory)
WHERE m.vector_store = $storage
WITH m
LIMIT $limit
SET m.vector_store = $vector_store, m.vector_state = 'pending', m.context_state = 'pending',
    m.context_seq = coalesce(m.context_seq, 0) + 1,
    m.context_since = coalesce(m.context_since, timestamp()), m.context_embedded_hash = null
RETURN count(m) AS adopted
