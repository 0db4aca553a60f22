// Full memories by id, with outgoing links in creation order; read only (search results).
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.namespace = $namespace
CALL (m) {
  OPTIONAL MATCH (m)-[r:LINK]->(t:Memory)
  WITH r, t ORDER BY r.seq, t.key
  RETURN collect(CASE WHEN r IS NULL THEN null ELSE
    {id: t.id, key: t.key, type: r.type, term: r.term, weight: r.weight, score: t.score,
     summary: t.summary, created_at: r.created_at.epochMillis} END) AS links
}
RETURN m {.id, .key, .namespace, .type, .title, .summary, .content, .tags, .score,
          .metadata_json, .session_id, .created_at, .updated_at, .accessed_at,
          .access_count} AS memory, links
