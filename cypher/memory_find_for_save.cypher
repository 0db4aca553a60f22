// The memory a save updates: by id when given, else by (namespace, key).
OPTIONAL MATCH (by_id:Memory {id: $id})
OPTIONAL MATCH (by_key:Memory {namespace: $namespace, key: $key})
RETURN by_id {.id, .namespace, .key, .content_hash, .created_at} AS by_id,
       by_key {.id, .namespace, .key, .content_hash, .created_at} AS by_key
