// The chains of supersession above memories: each memory, its superseder, that one's and so on
// (a memory has at most one superseder), as (id, superseded_by) pairs.
UNWIND $ids AS start
MATCH (:Memory {id: start})<-[:SUPERSEDES*0..64]-(s:Memory)
WHERE s.superseded_by IS NOT NULL
RETURN DISTINCT s.id AS id, s.superseded_by AS superseded_by
