// A memory of context_claim's $state (matched by the caller) this claimer may take: saved to its
// vector storage $vector_store (or before storage was recorded), not waiting for its own vector
// (for at most $vector_wait_ms after its context began to wait), and not held by a live claim.
coalesce(m.vector_store, $vector_store) = $vector_store
// (a CASE, not an OR: the planner would split an OR into a union of two index reads, losing
// the index's order)
AND CASE WHEN coalesce(m.vector_state, 'ok') <> 'pending' THEN true
         ELSE coalesce(m.context_since, 0) < timestamp() - $vector_wait_ms END
AND NOT EXISTS { MATCH (held:ContextClaim {id: m.id}) WHERE held.until >= timestamp() }
