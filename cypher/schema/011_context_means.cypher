// A context the model cannot read whole (a part over 600 characters, or the whole over 1,200)
// keeps the mean of its parts' stored vectors instead of the embedding of its first parts
// (docs/search.md): every context is refreshed once. Those read whole keep their embedded vector
// (its hash still matches, so no model runs); the others take the mean.
MATCH (m:Memory) WHERE m.context_state IN ['ok', 'approximate']
CALL (m) {
  SET m.context_state = 'pending', m.context_seq = coalesce(m.context_seq, 0) + 1,
      m.context_since = coalesce(m.context_since, timestamp())
} IN TRANSACTIONS OF 10000 ROWS
