// The memory filters of service/filters.py (MemoryFilters) on `m`, one predicate; each caller
// scopes `m` to $namespace. An unknown score counts as $missing_score.
($types IS NULL OR m.type IN $types)
AND all(tag IN $tags WHERE tag IN m.tags)
AND ($created_from IS NULL OR m.created_at >= $created_from)
AND ($created_to IS NULL OR m.created_at <= $created_to)
AND ($min_score IS NULL OR coalesce(m.score, $missing_score) >= $min_score)
AND ($include_superseded OR m.superseded_by IS NULL)
