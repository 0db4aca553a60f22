// A memory (by key) and everything within two links, either direction.
MATCH (m:Memory {namespace: $namespace, key: $key})
OPTIONAL MATCH p = (m)-[:LINK*1..2]-(:Memory)
RETURN m, p
