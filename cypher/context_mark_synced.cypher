// Release the claims of one lease ($lease) and store the refreshed context texts of the
// memories not marked again since the claim read them (their context_seq unchanged), each in
// its state ('approximate' or 'ok'; once 'ok' they no longer wait, so context_since goes) with
// the hash of what its context vector was embedded from (null for a mean vector); a memory
// marked again meanwhile keeps its state and its text, so a slow refresh never undoes a newer
// one.
// @include lock_namespaces_of_items
UNWIND $items AS item
CALL (item) {
  MATCH (c:ContextClaim {id: item.id})
  WHERE c.lease = $lease
  DELETE c
}
WITH item
MATCH (m:Memory {id: item.id})
WHERE m.context_seq = item.seq
SET m.context_state = item.state,
    m.context_since = CASE WHEN item.state = 'ok' THEN null ELSE m.context_since END,
    m.context_embedded_hash = item.embedded_hash
// The text only when it changed: each write of it is one more version in Lucene's statistics
// until segments merge (the second pass mostly finds the first pass's text).
WITH m, item
CALL (m, item) {
  WITH m, item
  WHERE m.context_text IS NULL OR m.context_text <> item.text
  SET m.context_text = item.text
}
RETURN count(m) AS synced
