// Claim memories whose context representation is in $state ('pending': stale; 'approximate':
// its text is current but its vector is the mean of stored ones), for the vector storage $vector_store
// (the one they were saved to, or any for memories saved before storage was recorded), unless
// another process holds a live claim on them. A claim is a ContextClaim node per memory (its
// id unique, in the memory's namespace), leased for $lease_ms: claimers serialize on that
// node, never on the memory, so a claim takes no lock a save needs; a crashed claimer's
// leases expire and return the work.
// A memory whose own vector a batch, a supersession or a reconcile is still writing (plain
// 'pending') waits for it, for at most $vector_wait_ms after its context began to wait: the first
// pass averages stored vectors, and without one it embeds the context text instead, in the
// background, while the batch's embeddings run. A vector that stays pending (a failed write, a
// supersession racing another process's save) holds it back no longer than that. A single save's
// 'pending:<token>' does not hold it back (its vector is written before the save answers).
// Returns them with their own text, the hash of what their stored context vector was embedded
// from (context_mark_synced), and their neighbours':
// the $neighbours strongest (LINK in either direction; by weight, then newest) and, with $hops
// 2, through each of those with at most 4 links (a turn of a thread, not a hub), its own
// $neighbours strongest further ones (each neighbour as [created ms, title, content, id, links
// away]). Saves, links and deletes mark what this reads (the
// marking statements reach the memories two links away through memories of at most 5 links).
// The order: this storage's memories whose context has waited over $overdue_ms and those saved
// before storage was recorded (UnnamedStorage, without vector_store: any storage takes them,
// read in no order), the longest wait first, take up to $overdue_limit places; this storage's
// most recent memories (by created_at) take the rest, then the early ones past $overdue_limit.
// A legacy memory's wait only grows, so none waits for ever. This storage's branches read an
// index that leads with (context_state, vector_store), in its order, so a claim reads about
// $limit memories however long its own backlog or another storage's is (ordering by the
// leading keys too, one value each here, is what lets the planner read the index's order
// instead of sorting the whole backlog).
WITH timestamp() - $overdue_ms AS overdue_before
CALL (overdue_before) {
  MATCH (m:Memory)
  USING INDEX SEEK m:Memory(context_state, vector_store, context_since)
  WHERE m.context_state = $state AND m.vector_store = $vector_store
    AND m.context_since < overdue_before
    AND
    // @include context_claimable
  WITH m
  ORDER BY m.context_state, m.vector_store, m.context_since
  LIMIT $overdue_limit
  RETURN collect(m) AS overdue
}
CALL () {
  MATCH (m:UnnamedStorage)
  USING INDEX SEEK m:UnnamedStorage(context_state)
  WHERE m.context_state = $state AND m:Memory AND m.vector_store IS NULL
    AND
    // @include context_claimable
  WITH m
  LIMIT $limit
  RETURN collect(m) AS unnamed
}
CALL () {
  MATCH (m:Memory)
  USING INDEX SEEK m:Memory(context_state, vector_store, created_at)
  WHERE m.context_state = $state AND m.vector_store = $vector_store AND m.created_at IS NOT NULL
    AND
    // @include context_claimable
  WITH m
  ORDER BY m.context_state DESC, m.vector_store DESC, m.created_at DESC
  LIMIT $limit
  RETURN collect(m) AS recent
}
CALL (overdue, unnamed) {
  UNWIND overdue + unnamed AS m
  WITH m
  ORDER BY coalesce(m.context_since, 0)
  RETURN collect(m) AS early
}
UNWIND early[..$overdue_limit] + [m IN recent WHERE NOT m IN early] + early[$overdue_limit..] AS m
WITH m
LIMIT $limit
// One deleted since it was matched reads without properties, and is not claimed.
WITH m, m.id AS id, m.namespace AS namespace
WHERE id IS NOT NULL
MERGE (c:ContextClaim {id: id})
ON CREATE SET c.lease = $lease, c.until = timestamp() + $lease_ms, c.namespace = namespace
ON MATCH SET c.lease = CASE WHEN c.until < timestamp() THEN $lease ELSE c.lease END,
             c.until = CASE WHEN c.until < timestamp() THEN timestamp() + $lease_ms ELSE c.until END
WITH m, c
WHERE c.lease = $lease
CALL (m) {
  // n unlabelled (LINK joins memories only): no index on n offers the planner a read of the
  // whole namespace (or store) instead of following m's links
  OPTIONAL MATCH (m)-[r:LINK]-(n)
  WHERE n.namespace = m.namespace
  WITH n, max(r.weight) AS weight
  ORDER BY weight DESC, n.created_at DESC, n.id
  LIMIT $neighbours
  RETURN collect(n) AS near
}
CALL (m, near) {
  UNWIND CASE WHEN $hops > 1 THEN near ELSE [] END AS via
  CALL (m, near, via) {
    MATCH (via)-[r:LINK]-(n)
    WHERE COUNT { (via)-[:LINK]-() } <= 4
      AND n.namespace = m.namespace AND n <> m AND NOT n IN near
    WITH n, max(r.weight) AS weight
    ORDER BY weight DESC, n.created_at DESC, n.id
    LIMIT $neighbours
    RETURN n
  }
  RETURN collect(DISTINCT n) AS far
}
RETURN m.id AS id, m.namespace AS namespace, m.key AS key, m.type AS type, m.tags AS tags,
       m.score AS score, m.created_at AS created_at, m.superseded_by AS superseded_by,
       coalesce(m.title, '') AS title, m.content AS content, m.context_seq AS seq,
       m.context_embedded_hash AS embedded_hash,
       [n IN near | [n.created_at.epochMillis, coalesce(n.title, ''), n.content, n.id, 1]] +
       [n IN far | [n.created_at.epochMillis, coalesce(n.title, ''), n.content, n.id, 2]]
       AS neighbours
