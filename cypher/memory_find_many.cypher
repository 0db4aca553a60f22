// The memories a batch of saves targets, per item: by id when given, and by (namespace, key).
UNWIND $items AS item
OPTIONAL MATCH (by_id:Memory {id: item.id})
OPTIONAL MATCH (by_key:Memory {namespace: $namespace, key: item.key})
RETURN item.index AS index,
       by_id {.id, .namespace, .key, .content_hash, .created_at} AS by_id,
       by_key {.id, .namespace, .key, .content_hash, .created_at} AS by_key
