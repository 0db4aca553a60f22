// After a schema migration: every namespace's graph version moves, so that no process (one of
// an older release, in a rolling upgrade) walks a link graph snapshot or serves a memory view
// read before the migration rewrote memories.
MATCH (s:NamespaceStats)
SET s.graph_version = randomUUID()
