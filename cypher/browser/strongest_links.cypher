// Links of $namespace by combined score (weight × target score, unknown score = 50).
MATCH (s:Memory {namespace: $namespace})-[r:LINK]->(t:Memory)
RETURN s.key AS source, r.type AS type, t.key AS target, r.weight AS weight,
       t.score AS target_score, r.weight * coalesce(t.score, 50.0) AS combined_score
ORDER BY combined_score DESC, weight DESC, target
LIMIT 100
