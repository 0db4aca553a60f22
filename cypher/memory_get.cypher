// memory_get in one round trip: the memories of a namespace named by id ($ids, any case) or by key
// ($keys; a ref asked both ways that is a memory's id does not also resolve as a key), each
// once with the refs that named it, its access tracking bumped, hydrated as memory_hydrate is
// (the same projection: a test compares the two views of one memory). One deleted while this
// waited for its write lock reads without properties: it is left out, as if never found.
CALL () {
  UNWIND $ids AS ref
  MATCH (m:Memory {id: toLower(ref)})
  WHERE m.namespace = $namespace
  RETURN ref, m
  UNION
  UNWIND $keys AS ref
  MATCH (m:Memory {namespace: $namespace, key: ref})
  WHERE NOT (ref IN $ids AND EXISTS { MATCH (other:Memory {id: toLower(ref)}) WHERE other.namespace = $namespace })
  RETURN ref, m
}
WITH m, collect(ref) AS refs
SET m.accessed_at = $now, m.access_count = coalesce(m.access_count, 0) + 1
WITH m, refs
WHERE m.id IS NOT NULL
CALL (m) {
  OPTIONAL MATCH (m)-[r:LINK]->(t:Memory)
  WITH r, t ORDER BY r.seq, t.key
  RETURN collect(CASE WHEN r IS NULL THEN null ELSE
    [t.id, t.key, r.type, r.term, r.weight, t.score, t.summary, r.created_at.epochMillis]
  END) AS links
}
RETURN refs, m {.id, .key, .namespace, .type, .title, .summary, .content, .tags, .score,
          .metadata_json, .session_id, .access_count, .superseded_by,
          created_at: m.created_at.epochMillis, updated_at: m.updated_at.epochMillis,
          accessed_at: m.accessed_at.epochMillis, superseded_at: m.superseded_at.epochMillis,
          supersedes: [(m)-[:SUPERSEDES]->(old:Memory) | [old.superseded_at.epochMillis, old.id]]}
       AS memory, links
