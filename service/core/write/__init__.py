"""The write side: a save (single, PATCH, batch item, import line) planned, written to Neo4j
and Qdrant in order, its supersessions and its pending marks."""
