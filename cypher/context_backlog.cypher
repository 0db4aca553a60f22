// How many memories (of one namespace, or of all when $namespace is null) wait for their
// context representation (index seek).
MATCH (m:Memory)
WHERE m.context_state = 'pending' AND ($namespace IS NULL OR m.namespace = $namespace)
RETURN count(m) AS backlog
