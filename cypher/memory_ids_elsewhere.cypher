// Which of $ids name memories of a namespace other than $namespace (an import into $namespace
// copies those under new ids).
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.namespace <> $namespace
RETURN m.id AS id
