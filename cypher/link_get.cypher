MATCH (source:Memory {id: $source_id})-[r:LINK {type: $type}]->(t:Memory {id: $target_id})
RETURN {id: t.id, key: t.key, type: r.type, term: r.term, weight: r.weight, score: t.score,
        summary: t.summary, created_at: r.created_at.epochMillis} AS link
