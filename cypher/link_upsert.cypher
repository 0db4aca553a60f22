// Create or update LINK edges from one memory (one per source, target and type) to targets
// named by ref: a memory id, else a key of $namespace. New links are counted in the
// namespace's counters. Returns the refs that name no memory, in the order given: the caller
// rolls the transaction back when there are any; and the namespace's graph version before and
// after, with the weights of every link between the source and each target found, either way
// (what a process advances its link graph snapshot with, link_graph.py).
// @include lock_namespace
// @include namespace_graph_version
WITH [version, memories, links, size_bytes] AS graph_version_before
MATCH (source:Memory {id: $source_id})
UNWIND $links AS link
OPTIONAL MATCH (by_id:Memory {id: toLower(link.target)})
WHERE by_id.namespace = $namespace
OPTIONAL MATCH (by_key:Memory {namespace: $namespace, key: link.target})
WITH graph_version_before, source, link, coalesce(by_id, by_key) AS target
WITH graph_version_before, source,
     collect(CASE WHEN target IS NULL THEN link.target END) AS missing,
     collect(CASE WHEN target IS NOT NULL THEN {link: link, target: target} END) AS found
CALL (source, found) {
  UNWIND found AS row
  WITH source, row.link AS link, row.target AS target
  MERGE (source)-[r:LINK {type: link.type}]->(target)
  ON CREATE SET r.created_at = $now, r.seq = link.seq, r._created = true
  SET r.weight = link.weight, r.term = link.term,
      source.context_state = 'pending', source.context_seq = coalesce(source.context_seq, 0) + 1,
      source.context_since = coalesce(source.context_since, timestamp()),
      target.context_state = 'pending', target.context_seq = coalesce(target.context_seq, 0) + 1,
      target.context_since = coalesce(target.context_since, timestamp())
  // Counted by the MERGE that created it: concurrent saves of one link count it once.
  WITH source, target, r, link, r._created IS NOT NULL AS created
  REMOVE r._created
  WITH source, target, created
  // @include mark_link_readers
  WITH source, sum(CASE WHEN created THEN 1 ELSE 0 END) AS added
  CALL (source, added) {
    MERGE (s:NamespaceStats {namespace: $namespace})
    SET s.links = coalesce(s.links, 0) + added, s.graph_version = randomUUID()
  }
}
CALL (source, found) {
  UNWIND found AS row
  WITH DISTINCT row.target AS target
  RETURN collect([target.id, [(source)-[r:LINK]-(target) | r.weight]]) AS pairs
}
MATCH (after:NamespaceStats {namespace: $namespace})
RETURN missing, graph_version_before, pairs,
       [coalesce(after.graph_version, ''), coalesce(after.memories, 0), coalesce(after.links, 0),
        coalesce(after.size_bytes, 0)] AS graph_version
