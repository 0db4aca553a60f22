// Marks for refresh every context that reads the text of `m` (context_claim): its
// neighbours', and theirs through neighbours of at most 5 links.
MATCH (m)-[:LINK]-(n:Memory)
OPTIONAL MATCH (n)-[:LINK]-(far:Memory)
WHERE COUNT { (n)-[:LINK]-() } <= 5
WITH collect(DISTINCT n) + collect(DISTINCT far) AS reached
UNWIND reached AS x
WITH DISTINCT x
SET x.context_state = 'pending', x.context_seq = coalesce(x.context_seq, 0) + 1,
    x.context_since = coalesce(x.context_since, timestamp())
