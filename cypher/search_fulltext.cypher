// Lucene BM25 top hits of the namespace's own index ($text_index; $fetch, best first), then the
// memory filters.
// `fetched` tells the caller whether Lucene may hold more hits than it returned; `matched`
// counts the kept ones (memory_search's and memory_fulltext_search's `total`); with $beyond,
// `beyond` lists the kept ones after the page (hybrid memory_search counts each memory once).
CALL db.index.fulltext.queryNodes($text_index, $lucene, {limit: $fetch})
YIELD node AS m, score
WITH count(*) AS fetched, collect(CASE WHEN m.namespace = $namespace AND
    // @include memory_filter
  THEN {node: m, score: score} END) AS kept
RETURN fetched, size(kept) AS matched,
       [hit IN kept[$skip..$skip + $limit]
         | {id: hit.node.id, score: hit.score, created_ms: hit.node.created_at.epochMillis}] AS hits,
       CASE WHEN $beyond THEN [hit IN kept[$skip + $limit..] | hit.node.id] ELSE [] END AS beyond
