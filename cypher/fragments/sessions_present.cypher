// The distinct session ids among `sessions` that some memory of $namespace has (one seek of the
// (namespace, session_id) index each): a write counts them before and after itself, and moves
// its namespace's `sessions` counter by the difference.
UNWIND sessions AS session
WITH DISTINCT session
WHERE session IS NOT NULL
  AND EXISTS { MATCH (o:Memory) WHERE o.namespace = $namespace AND o.session_id = session }
