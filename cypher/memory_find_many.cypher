// The memories a batch of saves targets, per item: by id when given, and by (namespace, key).
// Each is write-locked before it is read, as in memory_find_for_save.
// @include lock_namespace
UNWIND $items AS item
OPTIONAL MATCH (by_id:Memory {id: item.id})
OPTIONAL MATCH (by_key:Memory {namespace: $namespace, key: item.key})
FOREACH (m IN [x IN [by_id, by_key] WHERE x IS NOT NULL] | SET m._lock = true REMOVE m._lock)
RETURN item.index AS index,
       CASE WHEN by_id.id IS NOT NULL
         THEN by_id {.id, .namespace, .key, .content_hash, .created_at} END AS by_id,
       CASE WHEN by_key.key = item.key AND by_key.namespace = $namespace
         THEN by_key {.id, .namespace, .key, .content_hash, .created_at} END AS by_key
