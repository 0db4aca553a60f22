// Lucene BM25 over the graph-contextual text (a memory joined with its neighbours) in the
// namespace's own index ($context_index), then the memory filters; same shape as search_fulltext.
CALL db.index.fulltext.queryNodes($context_index, $lucene, {limit: $fetch})
YIELD node AS m, score
WITH count(*) AS fetched, collect(CASE WHEN m.namespace = $namespace AND
    // @include memory_filter
  THEN {node: m, score: score} END) AS kept
RETURN fetched, size(kept) AS matched,
       [hit IN kept[$skip..$skip + $limit]
         | {id: hit.node.id, score: hit.score, created_ms: hit.node.created_at.epochMillis}] AS hits,
       CASE WHEN $beyond THEN [hit IN kept[$skip + $limit..] | hit.node.id] ELSE [] END AS beyond
