// Lucene BM25 hits of one namespace with the memory filters; total counted before paging.
CALL db.index.fulltext.queryNodes('memory_fulltext', $lucene) YIELD node, score
WHERE node.namespace = $namespace
  AND ($types IS NULL OR node.type IN $types)
  AND all(tag IN $tags WHERE tag IN node.tags)
  AND ($created_from IS NULL OR node.created_at >= $created_from)
  AND ($created_to IS NULL OR node.created_at <= $created_to)
  AND ($min_score IS NULL OR coalesce(node.score, 50.0) >= $min_score)
WITH node, score
ORDER BY score DESC, node.created_at DESC, node.id
WITH collect({id: node.id, score: score}) AS hits
RETURN size(hits) AS total, hits[$skip..$skip + $limit] AS hits
