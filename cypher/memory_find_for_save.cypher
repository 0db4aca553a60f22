// The memory a save updates: by id when given, else by (namespace, key). Both are write-locked
// before they are read, so a save, PATCH or delete that commits meanwhile is seen whole (one
// deleted meanwhile reads without properties: the save creates it again). Also the namespace's
// graph version under that lock: the save's own statements alone move it until the commit.
// @include lock_namespace
// @include namespace_graph_version
OPTIONAL MATCH (by_id:Memory {id: $id})
OPTIONAL MATCH (by_key:Memory {namespace: $namespace, key: $key})
FOREACH (m IN [x IN [by_id, by_key] WHERE x IS NOT NULL] | SET m._lock = true REMOVE m._lock)
RETURN CASE WHEN by_id.id IS NOT NULL
         THEN by_id {.id, .namespace, .key, .content_hash, .created_at} END AS by_id,
       CASE WHEN by_key.key = $key AND by_key.namespace = $namespace
         THEN by_key {.id, .namespace, .key, .content_hash, .created_at} END AS by_key,
       [version, memories, links, size_bytes] AS graph_version
