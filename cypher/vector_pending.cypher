// Memories whose vector write may not have reached Qdrant, of the vector storage $vector_store
// (those saved to it, or before stores were named; of every storage when it is null).
MATCH (m:Memory)
WHERE m.vector_state STARTS WITH 'pending'
  AND ($vector_store IS NULL OR coalesce(m.vector_store, $vector_store) = $vector_store)
RETURN m.id AS id, m.namespace AS namespace, m.key AS key, m.type AS type, m.tags AS tags,
       m.title AS title, m.score AS score, m.content AS content, m.content_hash AS content_hash,
       m.created_at AS created_at, m.superseded_by AS superseded_by
LIMIT $limit
