"""The channels' `lookups`: with a mapping, a lookup asked again with the same arguments is
answered from it (bench/tune_fusion.py replays questions that way); without one, every call
looks up."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from service.config import SearchSettings
from service.core.read.channels import Channels
from service.core.stores import Stores
from service.filters import MemoryFilters
from service.stores.embeddings import Embedder
from service.stores.graph_store import GraphStore
from service.stores.vector_store import VectorFilter, VectorHit, VectorStore


@dataclass
class CountingStores:
    """A graph that answers `search_kv` with one key match, vectors with one hit, and counts."""

    reads: list[tuple[str, dict[str, Any]]] = field(
        default_factory=list[tuple[str, dict[str, Any]]]
    )
    searches: list[int] = field(default_factory=list[int])

    async def read(self, query: str, /, **params: Any) -> list[dict[str, Any]]:
        self.reads.append((query, params))
        return [{"id": "m1", "score": 1.0, "created_ms": 5}]

    async def search(
        self, vector: Any, flt: VectorFilter, limit: int, threshold: float, with_vectors: bool
    ) -> list[VectorHit]:
        self.searches.append(limit)
        return [VectorHit("m1", 0.5, 5)]

    async def embed(self, texts: Sequence[str]) -> Any:
        return np.ones((len(texts), 3), dtype=np.float32)

    def channels(self, lookups: dict[Any, Any] | None) -> Channels:
        stores = Stores(cast(GraphStore, self), cast(VectorStore, self), cast(Embedder, self))
        return Channels(SearchSettings(), stores, lookups)


async def test_remembered_lookups_are_asked_of_the_stores_once_per_distinct_arguments() -> None:
    fake = CountingStores()
    channels = fake.channels(lookups={})
    first = await channels.kv("ns", "key", MemoryFilters(), 10)
    assert await channels.kv("ns", "key", MemoryFilters(), 10) == first
    await channels.kv("ns", "key", MemoryFilters(), 20)
    hits = [await channels.vector("ns", "q", MemoryFilters(), 10) for _ in range(2)]
    assert hits[0] == hits[1] == [("m1", 0.5, 5)]
    assert ([p["limit"] for _, p in fake.reads], fake.searches) == ([10, 20], [10])


async def test_without_lookups_every_call_asks_the_stores() -> None:
    fake = CountingStores()
    channels = fake.channels(lookups=None)
    for _ in range(2):
        await channels.kv("ns", "key", MemoryFilters(), 10)
        await channels.vector("ns", "q", MemoryFilters(), 10)
    assert (len(fake.reads), fake.searches) == (2, [10, 10])
