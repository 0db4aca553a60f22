"""One memory filter everywhere (hypothesis): for generated filters, every Cypher statement that
filters, both vector engines and `MemoryFilters.admits` admit the same memories of one dataset."""

from __future__ import annotations

import random
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest_asyncio
from hypothesis import given, settings
from hypothesis import strategies as st

from service.config import Settings
from service.core.read.channels import Channels
from service.core.stores import Stores
from service.core.upkeep.context_index import ContextIndex
from service.core.write.batch import BatchSaver
from service.core.write.save_plan import Restored, row_point
from service.filters import MemoryFilters
from service.stores.embeddings import LocalMiniLM
from service.stores.graph_store import GraphStore
from service.stores.vector_store import EdgeVectorStore, VectorFilter, VectorStore
from tests.conftest import fresh_collection
from tests.qdrant_process import QdrantPeer

TYPES = ("note", "decision", "fact")
TAGS = ("red", "green", "blue")
SCORES = (None, 0.0, 25.5, 49.9, 50.0, 50.1, 80.0, 100.0)
SIZE = 48
WIDE = SIZE + 10  # every limit and fetch: more than the namespace holds
PREFIX = "ds-"  # every key's: the kv prefix lookup finds them all
START = datetime(2026, 3, 1, tzinfo=UTC)
# Whole milliseconds, as saves store them; 13 hours apart, so a date range takes some of them.
CREATED = [START + timedelta(hours=13 * i, milliseconds=7 * i) for i in range(SIZE)]


@dataclass(frozen=True)
class Dataset:
    """The memories of one namespace, found whole by `word`, `PREFIX` and their keys; `briefs`
    is what the graph walk reached of each (the input of `admits`)."""

    namespace: str
    word: str
    hub: str
    keys: list[str]
    briefs: dict[str, dict[str, Any]]
    vectors: dict[str, VectorStore]
    dimensions: int


def items(word: str, ids: list[str]) -> tuple[list[dict[str, Any]], dict[int, Restored]]:
    """A hub and SIZE memories linked to it: types, tags, scores (some unknown) and creation
    times varied, about a third superseded (as an import restores them)."""
    rng = random.Random(32)
    hub: dict[str, Any] = {"id": str(uuid.uuid4()), "key": "hub", "content": "the hub"}
    saved: list[dict[str, Any]] = [hub]
    restored: dict[int, Restored] = {}
    for i, memory_id in enumerate(ids):
        saved.append(
            {
                "id": memory_id,
                "key": f"{PREFIX}{i:02d}",
                "type": rng.choice(TYPES),
                "tags": [tag for tag in TAGS if rng.random() < 0.5],
                "score": rng.choice(SCORES),
                "content": f"{word} memory number {i}",
                "links": [{"key": "hub"}],
            }
        )
        superseded = rng.random() < 0.3
        moment = CREATED[i]
        restored[i + 1] = Restored(
            created_at=moment,
            updated_at=moment,
            accessed_at=moment,
            access_count=0,
            superseded_by=ids[(i + 1) % SIZE] if superseded else None,
            superseded_at=moment + timedelta(hours=1) if superseded else None,
        )
    return saved, restored


@pytest_asyncio.fixture(scope="module")
async def dataset(
    settings: Settings,
    graph: GraphStore,
    edge_store: EdgeVectorStore,
    context_store: EdgeVectorStore,
    context_index: ContextIndex,
    embedder: LocalMiniLM,
    qdrant_server: QdrantPeer,
) -> AsyncIterator[Dataset]:
    """Saved through the batch path (Neo4j, then Qdrant Edge); the contexts refreshed; the same
    points, from the stored rows, in a Qdrant server collection."""
    namespace, word = f"t-{uuid.uuid4().hex[:12]}", f"zq{uuid.uuid4().hex[:10]}"
    ids = [str(uuid.uuid4()) for _ in range(SIZE)]
    saved, restored = items(word, ids)
    saver = BatchSaver(settings, Stores(graph, edge_store, embedder, context_store))
    assert (await saver.save(namespace, saved, restored=restored))["saved"] == SIZE + 1
    await context_index.refresh_all()
    assert await context_index.backlog(namespace) == 0
    walked = await Channels(settings.search, Stores(graph, edge_store, embedder)).walk(
        namespace, {saved[0]["id"]: 1.0}, max_hops=1
    )
    briefs = {memory_id: reached.brief for memory_id, reached in walked.items()}
    assert sorted(briefs) == sorted(ids)
    async with fresh_collection(qdrant_server, embedder.dimensions) as server:
        await server.upsert(await stored_points(graph, edge_store, namespace, ids))
        yield Dataset(
            namespace,
            word,
            saved[0]["id"],
            [item["key"] for item in saved[1:]],
            briefs,
            {"edge": edge_store, "edge context": context_store, "server": server},
            embedder.dimensions,
        )


async def stored_points(
    graph: GraphStore, edge_store: EdgeVectorStore, namespace: str, ids: list[str]
) -> list[Any]:
    """The memories' points as reconcile writes them: from their stored rows."""
    rows = await graph.read(
        "export_memories", namespace=namespace, after_created=None, after_id=None, limit=WIDE
    )
    vectors = await edge_store.vectors_of(ids)
    memories = [row["memory"] for row in rows if row["memory"]["id"] in vectors]
    return [row_point({**m, "namespace": namespace}, vectors[m["id"]]) for m in memories]


async def cypher_found(graph: GraphStore, data: Dataset, flt: MemoryFilters) -> dict[str, set[str]]:
    """What each Cypher statement that filters finds: the fulltext ones by the word every memory
    holds, the kv branches by the prefix every key has, then by every key."""
    common = {"namespace": data.namespace, "lucene": f'"{data.word}"', **flt.cypher()}
    page = {"fetch": WIDE, "skip": 0, "limit": WIDE, "beyond": False, "graph_version": False}
    found: dict[str, set[str]] = {}
    for name in ("search_fulltext", "search_context_fulltext"):
        row = (await graph.read(name, **common, **page))[0]
        found[name] = {hit["id"] for hit in row["hits"]}
    branches: dict[str, dict[str, Any]] = {
        "prefix": {"query": PREFIX, "tokens": []},
        "keys": {"query": "", "tokens": data.keys},
    }
    for branch, kv in branches.items():
        rows = await graph.read("search_kv", limit=WIDE, **kv, **common)
        found[f"search_kv by {branch}"] = {row["id"] for row in rows}
        lexical = {
            "fetch": WIDE, "limit": WIDE, "keyword": True, "keyword_context": True,
            "graph_version": False,
        }  # fmt: skip
        row = (await graph.read("search_lexical", kv=True, **lexical, **kv, **common))[0]
        for channel in ("keyword", "keyword_context"):
            found[f"search_lexical {channel}"] = {hit["id"] for hit in row[channel]["hits"]}
        found[f"search_lexical kv by {branch}"] = {hit["id"] for hit in row["kv"]}
    return found


async def everywhere(graph: GraphStore, data: Dataset, flt: MemoryFilters) -> dict[str, set[str]]:
    """The dataset's memories each channel admits (the hub left out)."""
    found = await cypher_found(graph, data, flt)
    query = np.ones(data.dimensions, dtype=np.float32)
    for name, store in data.vectors.items():
        hits = await store.search(query, VectorFilter(data.namespace, flt), WIDE)
        found[f"vectors: {name}"] = {hit.id for hit in hits}
    found["admits"] = {i for i, brief in data.briefs.items() if flt.admits(brief)}
    return {name: ids - {data.hub} for name, ids in found.items()}


def moments() -> st.SearchStrategy[datetime | None]:
    """No bound, a bound at or within a millisecond of a creation time, or anywhere around."""
    near = st.tuples(st.sampled_from(CREATED), st.sampled_from([-1000, -500, -1, 0, 1, 500])).map(
        lambda pair: pair[0] + timedelta(microseconds=pair[1])
    )
    span = st.datetimes(
        min_value=datetime(2026, 2, 25), max_value=datetime(2026, 4, 1), timezones=st.just(UTC)
    )
    return st.none() | near | span


FILTERS = st.builds(
    MemoryFilters,
    types=st.lists(st.sampled_from((*TYPES, "absent")), max_size=3, unique=True).map(tuple),
    tags=st.lists(st.sampled_from(TAGS), max_size=2, unique=True).map(tuple),
    created_from=moments(),
    created_to=moments(),
    min_score=st.none() | st.sampled_from([s for s in SCORES if s is not None]) | st.floats(0, 100),
    include_superseded=st.booleans(),
)


async def test_every_channel_finds_the_whole_dataset_when_nothing_is_filtered(
    graph: GraphStore, dataset: Dataset
) -> None:
    briefs = dataset.briefs.values()
    assert any(brief["score"] is None for brief in briefs)
    assert 0 < sum(bool(brief["superseded"]) for brief in briefs) < SIZE
    found = await everywhere(graph, dataset, MemoryFilters(include_superseded=True))
    assert {name: len(ids) for name, ids in found.items() if len(ids) != SIZE} == {}


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(flt=FILTERS)
async def test_every_channel_admits_what_memory_filters_admit(
    graph: GraphStore, dataset: Dataset, flt: MemoryFilters
) -> None:
    found = await everywhere(graph, dataset, flt)
    expected = found["admits"]
    wrong = {name: sorted(ids ^ expected) for name, ids in found.items() if ids != expected}
    assert wrong == {}, f"{flt}: channels that differ from admits ({len(expected)} admitted)"
