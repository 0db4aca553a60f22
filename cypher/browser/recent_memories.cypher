// The 50 newest memories of $namespace with their outgoing links.
MATCH (m:Memory {namespace: $namespace})
WITH m ORDER BY m.created_at DESC LIMIT 50
OPTIONAL MATCH p = (m)-[:LINK]->(:Memory)
RETURN m, p
