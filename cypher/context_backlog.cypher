// How many memories (of one namespace, or of all when $namespace is null) wait for their
// context representation, of the vector storage $vector_store (all when null): what the
// indexers writing to that storage have left (index seek).
MATCH (m:Memory)
WHERE m.context_state = 'pending' AND ($namespace IS NULL OR m.namespace = $namespace)
  AND ($vector_store IS NULL OR coalesce(m.vector_store, $vector_store) = $vector_store)
RETURN count(m) AS backlog
