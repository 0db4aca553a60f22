MATCH (t:VectorTombstone)
RETURN t.id AS id
LIMIT $limit
