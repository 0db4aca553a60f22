// Of the namespaces named, those that hold no memory (reconcile --full drops their fulltext
// indexes; a namespace's next keyword read makes them again).
UNWIND $namespaces AS namespace
OPTIONAL MATCH (s:NamespaceStats {namespace: namespace})
WITH namespace, s
WHERE coalesce(s.memories, 0) = 0
  AND NOT EXISTS { MATCH (m:Memory) WHERE m.namespace = namespace }
RETURN collect(namespace) AS empty
