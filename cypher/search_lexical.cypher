// retrieve_context's lexical channels in one round trip: Lucene BM25 over the memories' own text
// (`keyword`) and over their graph-contextual text (`keyword_context`), each shaped as
// search_fulltext returns it, and the key-value rows of search_kv (`kv`). A channel whose flag
// ($keyword, $keyword_context, $kv) is false looks nothing up and returns no hits.
CALL () {
  UNWIND CASE WHEN $keyword THEN [1] ELSE [] END AS wanted
  CALL db.index.fulltext.queryNodes('memory_fulltext', $lucene, {limit: $fetch})
  YIELD node, score
  WITH collect({node: node, score: score}) AS raw
  WITH raw, [hit IN raw WHERE hit.node.namespace = $namespace
      AND ($types IS NULL OR hit.node.type IN $types)
      AND all(tag IN $tags WHERE tag IN hit.node.tags)
      AND ($created_from IS NULL OR hit.node.created_at >= $created_from)
      AND ($created_to IS NULL OR hit.node.created_at <= $created_to)
      AND ($min_score IS NULL OR coalesce(hit.node.score, 50.0) >= $min_score)
      AND ($include_superseded OR hit.node.superseded_by IS NULL)
    | {id: hit.node.id, score: hit.score, created_ms: hit.node.created_at.epochMillis}] AS kept
  RETURN {fetched: size(raw), matched: size(kept), hits: kept[0..$limit]} AS keyword
}
CALL () {
  UNWIND CASE WHEN $keyword_context THEN [1] ELSE [] END AS wanted
  CALL db.index.fulltext.queryNodes('memory_context_fulltext', $lucene, {limit: $fetch})
  YIELD node, score
  WITH collect({node: node, score: score}) AS raw
  WITH raw, [hit IN raw WHERE hit.node.namespace = $namespace
      AND ($types IS NULL OR hit.node.type IN $types)
      AND all(tag IN $tags WHERE tag IN hit.node.tags)
      AND ($created_from IS NULL OR hit.node.created_at >= $created_from)
      AND ($created_to IS NULL OR hit.node.created_at <= $created_to)
      AND ($min_score IS NULL OR coalesce(hit.node.score, 50.0) >= $min_score)
      AND ($include_superseded OR hit.node.superseded_by IS NULL)
    | {id: hit.node.id, score: hit.score, created_ms: hit.node.created_at.epochMillis}] AS kept
  RETURN {fetched: size(raw), matched: size(kept), hits: kept[0..$limit]} AS keyword_context
}
CALL () {
  CALL () {
    UNWIND CASE WHEN $kv AND $query <> '' THEN [$query] ELSE [] END AS prefix
    MATCH (m:Memory {namespace: $namespace})
    WHERE m.key STARTS WITH prefix
      AND ($types IS NULL OR m.type IN $types)
      AND all(tag IN $tags WHERE tag IN m.tags)
      AND ($created_from IS NULL OR m.created_at >= $created_from)
      AND ($created_to IS NULL OR m.created_at <= $created_to)
      AND ($min_score IS NULL OR coalesce(m.score, 50.0) >= $min_score)
      AND ($include_superseded OR m.superseded_by IS NULL)
    RETURN m.id AS id, CASE WHEN m.key = prefix THEN 1.0 ELSE 0.9 END AS score,
           m.created_at.epochMillis AS created_ms, m.key AS key
    ORDER BY score DESC, key
    LIMIT $limit
    UNION
    UNWIND CASE WHEN $kv THEN $tokens ELSE [] END AS token
    MATCH (m:Memory {namespace: $namespace, key: token})
    WHERE ($types IS NULL OR m.type IN $types)
      AND all(tag IN $tags WHERE tag IN m.tags)
      AND ($created_from IS NULL OR m.created_at >= $created_from)
      AND ($created_to IS NULL OR m.created_at <= $created_to)
      AND ($min_score IS NULL OR coalesce(m.score, 50.0) >= $min_score)
      AND ($include_superseded OR m.superseded_by IS NULL)
    RETURN m.id AS id, 1.0 AS score, m.created_at.epochMillis AS created_ms, m.key AS key
    ORDER BY score DESC
    LIMIT $limit
  }
  RETURN collect({id: id, score: score, created_ms: created_ms}) AS kv
}
RETURN keyword, keyword_context, kv
