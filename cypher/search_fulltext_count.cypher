// Every Lucene hit of the namespace that passes the memory filters (memory_search totals).
CALL db.index.fulltext.queryNodes('memory_fulltext', $lucene) YIELD node
WHERE node.namespace = $namespace
  AND ($types IS NULL OR node.type IN $types)
  AND all(tag IN $tags WHERE tag IN node.tags)
  AND ($created_from IS NULL OR node.created_at >= $created_from)
  AND ($created_to IS NULL OR node.created_at <= $created_to)
  AND ($min_score IS NULL OR coalesce(node.score, 50.0) >= $min_score)
  AND ($include_superseded OR node.superseded_by IS NULL)
RETURN count(node) AS total
