// Whether Neo4j holds a memory whose vector was written to a vector storage other than
// $vector_store (another embedding model's collection, or another service's store).
RETURN EXISTS {
  MATCH (m:Memory)
  WHERE m.vector_store IS NOT NULL AND m.vector_store <> $vector_store
} AS found
