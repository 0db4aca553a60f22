// The 25 newest memories of type $type in $namespace, with the memories they link to.
MATCH (m:Memory {namespace: $namespace, type: $type})
WITH m ORDER BY m.created_at DESC, m.key LIMIT 25
OPTIONAL MATCH p = (m)-[:LINK]->(:Memory)
RETURN m, p
