// retrieve_context's lexical channels in one round trip: Lucene BM25 over the memories' own text
// (`keyword`, $text_index) and over their graph-contextual text (`keyword_context`,
// $context_index), both indexes of the namespace alone, each shaped as
// search_fulltext returns it, and the key-value rows of search_kv (`kv`). A channel whose flag
// ($keyword, $keyword_context, $kv) is false looks nothing up and returns no hits. With
// $graph_version, also the row of graph_version (`graph`; null without) for the walk.
CALL () {
  UNWIND CASE WHEN $keyword THEN [1] ELSE [] END AS wanted
  CALL db.index.fulltext.queryNodes($text_index, $lucene, {limit: $fetch})
  YIELD node AS m, score
  WITH count(*) AS fetched, collect(CASE WHEN m.namespace = $namespace AND
      // @include memory_filter
    THEN {id: m.id, score: score, created_ms: m.created_at.epochMillis} END) AS kept
  RETURN {fetched: fetched, matched: size(kept), hits: kept[0..$limit]} AS keyword
}
CALL () {
  UNWIND CASE WHEN $keyword_context THEN [1] ELSE [] END AS wanted
  CALL db.index.fulltext.queryNodes($context_index, $lucene, {limit: $fetch})
  YIELD node AS m, score
  WITH count(*) AS fetched, collect(CASE WHEN m.namespace = $namespace AND
      // @include memory_filter
    THEN {id: m.id, score: score, created_ms: m.created_at.epochMillis} END) AS kept
  RETURN {fetched: fetched, matched: size(kept), hits: kept[0..$limit]} AS keyword_context
}
CALL () {
  CALL () {
    UNWIND CASE WHEN $kv AND $query <> '' THEN [$query] ELSE [] END AS prefix
    MATCH (m:Memory {namespace: $namespace})
    WHERE m.key STARTS WITH prefix AND
      // @include memory_filter
    RETURN m.id AS id, CASE WHEN m.key = prefix THEN 1.0 ELSE 0.9 END AS score,
           m.created_at.epochMillis AS created_ms, m.key AS key
    ORDER BY score DESC, key
    LIMIT $limit
    UNION
    UNWIND CASE WHEN $kv THEN $tokens ELSE [] END AS token
    MATCH (m:Memory {namespace: $namespace, key: token})
    WHERE
      // @include memory_filter
    RETURN m.id AS id, 1.0 AS score, m.created_at.epochMillis AS created_ms, m.key AS key
    ORDER BY score DESC
    LIMIT $limit
  }
  RETURN collect({id: id, score: score, created_ms: created_ms}) AS kv
}
CALL () {
  UNWIND CASE WHEN $graph_version THEN [1] ELSE [] END AS wanted
  // @include namespace_graph_version
  RETURN collect({version: version, memories: memories, links: links, size_bytes: size_bytes})[0]
         AS graph
}
RETURN keyword, keyword_context, kv, graph
