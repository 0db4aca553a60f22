// After an import: a SUPERSEDES relationship from each superseder to the memories of the
// namespace whose superseded_by names it; `recorded` counts those this import added.
MATCH (old:Memory)
WHERE old.namespace = $namespace AND old.superseded_by IS NOT NULL
MATCH (new:Memory {id: old.superseded_by})
WHERE new.namespace = $namespace
WITH new, old, NOT EXISTS { (new)-[:SUPERSEDES]->(old) } AS added
MERGE (new)-[s:SUPERSEDES]->(old)
ON CREATE SET s.created_at = old.superseded_at
RETURN count(CASE WHEN added THEN s END) AS recorded
