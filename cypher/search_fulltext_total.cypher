// search_fulltext and, when Lucene may hold more hits than it returned, the total of
// search_fulltext_count, in one round trip (memory_search and memory_fulltext_search).
CALL db.index.fulltext.queryNodes('memory_fulltext', $lucene, {limit: $fetch}) YIELD node, score
WITH collect({node: node, score: score}) AS raw
WITH raw, [hit IN raw WHERE hit.node.namespace = $namespace
    AND ($types IS NULL OR hit.node.type IN $types)
    AND all(tag IN $tags WHERE tag IN hit.node.tags)
    AND ($created_from IS NULL OR hit.node.created_at >= $created_from)
    AND ($created_to IS NULL OR hit.node.created_at <= $created_to)
    AND ($min_score IS NULL OR coalesce(hit.node.score, 50.0) >= $min_score)
    AND ($include_superseded OR hit.node.superseded_by IS NULL)
  | {id: hit.node.id, score: hit.score, created_ms: hit.node.created_at.epochMillis}] AS kept
CALL (raw) {
  UNWIND CASE WHEN size(raw) = $fetch THEN [1] ELSE [] END AS more
  CALL db.index.fulltext.queryNodes('memory_fulltext', $lucene) YIELD node
  WHERE node.namespace = $namespace
    AND ($types IS NULL OR node.type IN $types)
    AND all(tag IN $tags WHERE tag IN node.tags)
    AND ($created_from IS NULL OR node.created_at >= $created_from)
    AND ($created_to IS NULL OR node.created_at <= $created_to)
    AND ($min_score IS NULL OR coalesce(node.score, 50.0) >= $min_score)
    AND ($include_superseded OR node.superseded_by IS NULL)
  RETURN count(node) AS total
}
RETURN size(raw) AS fetched, size(kept) AS matched, kept[$skip..$skip + $limit] AS hits, total
