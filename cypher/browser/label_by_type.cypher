// Gives every memory its `type` as a second label (decision, design, ...) and drops labels of
// types it no longer has, so that style.grass colours memories by type. Changes labels only
// (never `NS_<namespace>`, which the namespace's fulltext indexes cover, nor `UnnamedStorage`,
// which the context indexer reads); run it again after new memories arrive.
MATCH (m:Memory)
WITH m, [label IN labels(m)
         WHERE NOT label IN ['Memory', 'UnnamedStorage', m.type, 'NS_' + m.namespace]] AS stale
CALL (m, stale) {
  UNWIND stale AS label
  REMOVE m:$(label)
}
SET m:$(m.type)
RETURN count(m) AS memories
