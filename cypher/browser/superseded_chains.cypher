// Every chain of superseded versions in $namespace: from the current memory (not superseded)
// along SUPERSEDES (new -> old, each old one carrying superseded_by and superseded_at) to the
// first version; newest chains first.
MATCH p = (current:Memory {namespace: $namespace})-[:SUPERSEDES*1..20]->(first:Memory)
WHERE current.superseded_by IS NULL AND NOT (first)-[:SUPERSEDES]->(:Memory)
RETURN p
ORDER BY current.created_at DESC, current.key
LIMIT 50
