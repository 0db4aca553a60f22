// Lucene BM25 top hits ($fetch, best first), then the namespace and memory filters.
// `fetched` tells the caller whether Lucene may hold more hits than it returned; `matched`
// counts the kept ones (memory_search's and memory_fulltext_search's `total`); with $beyond,
// `beyond` lists the kept ones after the page (hybrid memory_search counts each memory once).
CALL db.index.fulltext.queryNodes('memory_fulltext', $lucene, {limit: $fetch}) YIELD node, score
WITH collect({node: node, score: score}) AS raw
WITH raw, [hit IN raw WHERE hit.node.namespace = $namespace
    AND ($types IS NULL OR hit.node.type IN $types)
    AND all(tag IN $tags WHERE tag IN hit.node.tags)
    AND ($created_from IS NULL OR hit.node.created_at >= $created_from)
    AND ($created_to IS NULL OR hit.node.created_at <= $created_to)
    AND ($min_score IS NULL OR coalesce(hit.node.score, 50.0) >= $min_score)
    AND ($include_superseded OR hit.node.superseded_by IS NULL)] AS kept
RETURN size(raw) AS fetched, size(kept) AS matched,
       [hit IN kept[$skip..$skip + $limit]
         | {id: hit.node.id, score: hit.score, created_ms: hit.node.created_at.epochMillis}] AS hits,
       CASE WHEN $beyond THEN [hit IN kept[$skip + $limit..] | hit.node.id] ELSE [] END AS beyond
