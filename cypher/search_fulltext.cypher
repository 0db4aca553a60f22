// Lucene BM25 top hits of the namespace's own index ($text_index; $fetch, best first), then the
// memory filters.
// `fetched` tells the caller whether Lucene may hold more hits than it returned; `matched`
// counts the kept ones (memory_search's and memory_fulltext_search's `total`); with $beyond,
// `beyond` lists the kept ones after the page (hybrid memory_search counts each memory once).
// With $graph_version, also the row of graph_version (`graph`; null without), which the views
// held between searches are checked against (service/core/read/view_cache.py).
CALL db.index.fulltext.queryNodes($text_index, $lucene, {limit: $fetch})
YIELD node AS m, score
WITH count(*) AS fetched, collect(CASE WHEN m.namespace = $namespace AND
    // @include memory_filter
  THEN {node: m, score: score} END) AS kept
CALL () {
  UNWIND CASE WHEN $graph_version THEN [1] ELSE [] END AS wanted
  // @include namespace_graph_version
  RETURN collect({version: version, memories: memories, links: links, size_bytes: size_bytes})[0]
         AS graph
}
RETURN fetched, size(kept) AS matched,
       [hit IN kept[$skip..$skip + $limit]
         | {id: hit.node.id, score: hit.score, created_ms: hit.node.created_at.epochMillis}] AS hits,
       CASE WHEN $beyond THEN [hit IN kept[$skip + $limit..] | hit.node.id] ELSE [] END AS beyond,
       graph
