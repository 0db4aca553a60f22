"""The stores: Neo4j (Cypher library, local server), Qdrant (one module per engine) and the
embedder. The only importers of neo4j, qdrant and onnxruntime."""
