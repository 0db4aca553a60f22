MATCH (source:Memory {id: $source_id})-[r:LINK {type: $type}]->(target:Memory {id: $target_id})
DELETE r
RETURN count(*) AS removed
