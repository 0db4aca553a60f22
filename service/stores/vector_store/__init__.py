"""Vectors of memories in Qdrant, behind one `VectorStore` protocol with two engines:
Qdrant Edge in-process (the default) and a Qdrant server or cluster."""

from service.stores.vector_store.base import (
    IndexStatus,
    VectorFilter,
    VectorHit,
    VectorPoint,
    VectorStore,
    collection_name,
)
from service.stores.vector_store.edge import EdgeVectorStore
from service.stores.vector_store.server import CollectionLayout, ServerVectorStore

__all__ = [
    "CollectionLayout",
    "EdgeVectorStore",
    "IndexStatus",
    "ServerVectorStore",
    "VectorFilter",
    "VectorHit",
    "VectorPoint",
    "VectorStore",
    "collection_name",
]
