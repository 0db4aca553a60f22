// A memory ($key in $namespace) and every memory within two links, either direction; the
// style captions each link with its weight (set it with `:style` and style.grass).
MATCH (m:Memory {namespace: $namespace, key: $key})
OPTIONAL MATCH p = (m)-[:LINK*1..2]-(:Memory)
RETURN m, p
