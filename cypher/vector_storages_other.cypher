// The vector storages other than $vector_store that memories' vectors were written to, with how
// many memories each holds: after a change of embedding model, the old model's collection (or
// another service's store on a shared Neo4j).
MATCH (m:Memory)
WHERE m.vector_store IS NOT NULL AND m.vector_store <> $vector_store
RETURN m.vector_store AS storage, count(*) AS memories
ORDER BY memories DESC, storage
