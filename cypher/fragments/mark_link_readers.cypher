// Marks for refresh the contexts that read the links of `source` and `target` through an end of
// at most 5 links (context_claim).
CALL (source, target) {
  UNWIND [source, target] AS side
  MATCH (side)-[:LINK]-(n:Memory)
  WHERE COUNT { (side)-[:LINK]-() } <= 5
  WITH DISTINCT n
  SET n.context_state = 'pending', n.context_seq = coalesce(n.context_seq, 0) + 1,
      n.context_since = coalesce(n.context_since, timestamp())
}
