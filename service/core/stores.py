"""The stores every use case works on, passed as one: Neo4j, the memories' vectors, the
embedder, and (where built) the graph-contextual vectors."""

from __future__ import annotations

from dataclasses import dataclass

from service.stores.embeddings import Embedder
from service.stores.graph_store import GraphStore
from service.stores.vector_store import VectorStore


@dataclass(frozen=True)
class Stores:
    """Neo4j, Qdrant (own and contextual vectors) and the embedder of one runtime."""

    graph: GraphStore
    vectors: VectorStore
    embedder: Embedder
    context_vectors: VectorStore | None = None
