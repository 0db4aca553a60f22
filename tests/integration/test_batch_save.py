"""Batch saves against the real Neo4j and Qdrant Edge: per-item results, links to memories saved
earlier in the batch, vectors written, updates and conflicts as in single saves, re-imports."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import pytest

from service.config import Settings
from service.core.memories import MemoryService
from service.core.models import SaveInput
from service.core.results import BatchResult
from service.core.stores import Stores
from service.core.write.batch import BatchSaver
from service.stores.embeddings import LocalMiniLM, Vectors
from service.stores.graph_store import GraphStore, Tx
from service.stores.vector_store import EdgeVectorStore


class CountingEmbedder:
    """The real embedder, counting the texts it embeds."""

    def __init__(self, inner: LocalMiniLM) -> None:
        self.inner = inner
        self.model = inner.model
        self.dimensions = inner.dimensions
        self.texts: list[str] = []

    async def embed(self, texts: Sequence[str]) -> Vectors:
        self.texts.extend(texts)
        return await self.inner.embed(texts)

    async def close(self) -> None:
        return None


@pytest.fixture
def counting(embedder: LocalMiniLM) -> CountingEmbedder:
    return CountingEmbedder(embedder)


@pytest.fixture
def saver(
    settings: Settings, graph: GraphStore, edge_store: EdgeVectorStore, counting: CountingEmbedder
) -> BatchSaver:
    return BatchSaver(settings, Stores(graph, edge_store, counting))


def outcome(result: BatchResult) -> list[tuple[Any, ...]]:
    """Each item's (index, key, created) when saved, or (index, error_type, message)."""
    return [
        (r["index"], r["key"], r["created"])
        if r["success"] is True
        else (r["index"], r["error_type"], r["message"])
        for r in result["results"]
    ]


async def test_a_batch_saves_valid_items_links_earlier_ones_and_reports_the_rest(
    saver: BatchSaver,
    memories: MemoryService,
    edge_store: EdgeVectorStore,
    counting: CountingEmbedder,
    namespace: str,
) -> None:
    old = await memories.save(namespace, SaveInput(key="old", content="stored before", score=40))
    items = [
        {"key": "a", "content": "alpha", "score": 80},
        {"key": "b", "content": "beta", "links": [{"key": "a", "weight": 0.9}, {"key": "old"}]},
        {"key": "c", "content": "gamma", "links": [{"key": "ghost"}]},
        {"key": "d", "content": "delta", "links": [{"key": "e"}]},
        {"key": "e", "content": "epsilon", "links": [{"id": old["memory"]["id"], "type": "x"}]},
        {"key": "f"},
    ]
    result = await saver.save(namespace, items)
    assert outcome(result) == [
        (0, "a", True),
        (1, "b", True),
        (2, "not_found", "Link target(s) not found: ghost"),
        (3, "not_found", "Link target(s) not found: e"),
        (4, "e", True),
        (5, "invalid_parameter", "Missing required parameter 'content'"),
    ]
    assert (result["saved"], result["failed"]) == (3, 3)
    got = await memories.get(namespace, keys=["a", "b", "c", "d", "e"])
    assert got["missing"] == ["c", "d"]
    by_key = {m["key"]: m for m in got["memories"]}
    assert [r["id"] for r in result["results"] if r["success"]] == [
        by_key[k]["id"] for k in ("a", "b", "e")
    ]
    assert [(x["key"], x["weight"], x["combined_score"]) for x in by_key["b"]["links"]] == [
        ("a", 0.9, 72.0),
        ("old", 0.5, 20.0),
    ]
    assert [(x["key"], x["type"]) for x in by_key["e"]["links"]] == [("old", "x")]
    assert (by_key["a"]["score"], by_key["a"]["content"], by_key["a"]["summary"]) == (
        80.0,
        "alpha",
        "alpha",
    )
    ids = [m["id"] for m in got["memories"]]
    assert await edge_store.existing_ids(ids) == set(ids)
    assert sorted(counting.texts) == ["alpha", "beta", "epsilon"]


async def test_saving_the_same_batch_again_updates_in_place_and_embeds_only_changes(
    saver: BatchSaver, counting: CountingEmbedder, namespace: str
) -> None:
    items: list[dict[str, Any]] = [
        {"key": "p", "content": "one", "links": [{"key": "q"}]},
        {"key": "q", "content": "two"},
        {"key": "r", "content": "three", "links": [{"key": "q", "weight": 0.7}]},
    ]
    first = await saver.save(namespace, items)
    again = await saver.save(namespace, items)
    items[2] = {**items[2], "content": "three, changed"}
    changed = await saver.save(namespace, items)
    ids = [r["id"] for r in first["results"]]
    assert outcome(first)[1:] == [(1, "q", True), (2, "r", True)]
    assert outcome(first)[0] == (0, "not_found", "Link target(s) not found: q")
    assert [r["id"] for r in again["results"][1:]] == ids[1:]
    assert outcome(again) == [(0, "p", True), (1, "q", False), (2, "r", False)]
    assert outcome(changed) == [(0, "p", False), (1, "q", False), (2, "r", False)]
    assert counting.texts == ["two", "three", "one", "three, changed"]


async def test_batch_updates_by_id_rename_and_refuse_taken_keys_and_repeats(
    saver: BatchSaver, memories: MemoryService, namespace: str
) -> None:
    one = (await memories.save(namespace, SaveInput(key="one", content="1")))["memory"]["id"]
    two = (await memories.save(namespace, SaveInput(key="two", content="2")))["memory"]["id"]
    foreign = (await memories.save(namespace + "-x", SaveInput(content="elsewhere")))["memory"]
    result = await saver.save(
        namespace,
        [
            {"id": one, "key": "two", "content": "1b"},
            {"id": one, "key": "one-renamed", "content": "1c"},
            {"key": "one-renamed", "content": "again"},
            {"key": "two", "content": "2b"},
            {"key": "one", "content": "by old key"},
            {"id": foreign["id"], "content": "steal"},
            {"key": "two", "content": "2c"},
        ],
    )
    assert outcome(result) == [
        (0, "conflict", f"Key 'two' is already used by memory {two}"),
        (1, "one-renamed", False),
        (
            2,
            "invalid_parameter",
            "Invalid memories item: key 'one-renamed' is already saved by item 1 of this batch",
        ),
        (3, "two", False),
        (
            4,
            "invalid_parameter",
            f"Invalid memories item: memory {one} is already saved by item 1 of this batch",
        ),
        (5, "conflict", f"Memory id {foreign['id']} is taken"),
        (
            6,
            "invalid_parameter",
            "Invalid memories item: key 'two' is already saved by item 3 of this batch",
        ),
    ]
    got = await memories.get(namespace, keys=["one-renamed", "two", "one"])
    assert [(m["id"] == one, m["content"]) for m in got["memories"]] == [
        (True, "1c"),
        (False, "2b"),
    ]
    assert got["missing"] == ["one"]


async def test_an_item_may_link_to_itself_by_its_own_key(
    saver: BatchSaver, memories: MemoryService, namespace: str
) -> None:
    result = await saver.save(
        namespace, [{"key": "self", "content": "me", "links": [{"key": "self"}]}]
    )
    assert outcome(result) == [(0, "self", True)]
    got = await memories.get(namespace, keys=["self"])
    assert [x["key"] for x in got["memories"][0]["links"]] == ["self"]


async def test_a_batch_keeps_the_namespace_counters_as_single_saves_do(
    saver: BatchSaver, memories: MemoryService, namespace: str
) -> None:
    items: list[dict[str, Any]] = [
        {"key": "x", "content": "first text", "tags": ["a"]},
        {"key": "y", "content": "second", "links": [{"key": "x"}, {"key": "x", "type": "t"}]},
        {"key": "z", "content": "third", "links": [{"key": "y", "weight": 0.2}]},
    ]
    await saver.save(namespace, items)
    items[0] = {**items[0], "content": "first text, longer now"}
    await saver.save(namespace, items)
    single = namespace + "-single"
    for item in items:
        await memories.save(single, SaveInput.model_validate(item))
    batch_stats = await memories.lifecycle.stats(namespace)
    single_stats = await memories.lifecycle.stats(single)
    assert (batch_stats["memoryCount"], batch_stats["linkCount"]) == (3, 3)
    assert batch_stats["dbSizeBytes"] == single_stats["dbSizeBytes"]


async def test_a_batch_over_the_budget_asks_for_a_cleanup_keeping_what_it_saved(
    settings: Settings,
    graph: GraphStore,
    edge_store: EdgeVectorStore,
    counting: CountingEmbedder,
    namespace: str,
) -> None:
    small = settings.model_copy(
        update={"memory": settings.memory.model_copy(update={"max_size_bytes": 3000})}
    )
    calls: list[tuple[str, list[str]]] = []

    async def cleanup(ns: str, keep: Sequence[str]) -> None:
        calls.append((ns, list(keep)))

    saver = BatchSaver(small, Stores(graph, edge_store, counting))
    under = await saver.save(namespace, [{"key": "s", "content": "small"}], cleanup)
    over = await saver.save(namespace, [{"key": "b", "content": "big " * 300}], cleanup)
    assert under["saved"] == over["saved"] == 1
    assert calls == [(namespace, [over["results"][0]["id"]])]


class WitnessEmbedder(CountingEmbedder):
    """The real embedder; at each call it records how many transactions were open."""

    def __init__(self, inner: LocalMiniLM, open_transactions: Callable[[], int]) -> None:
        super().__init__(inner)
        self.open_transactions = open_transactions
        self.opened: list[int] = []

    async def embed(self, texts: Sequence[str]) -> Vectors:
        self.opened.append(self.open_transactions())
        return await super().embed(texts)


async def test_a_batch_embeds_its_texts_while_its_transaction_writes(
    settings: Settings,
    graph: GraphStore,
    edge_store: EdgeVectorStore,
    embedder: LocalMiniLM,
    namespace: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    transaction, open_now = graph.transaction, [0]

    async def counted(work: Callable[[Tx], Awaitable[Any]]) -> Any:
        open_now[0] += 1
        try:
            return await transaction(work)
        finally:
            open_now[0] -= 1

    monkeypatch.setattr(graph, "transaction", counted)
    witness = WitnessEmbedder(embedder, lambda: open_now[0])
    items = [{"key": f"note-{i}", "content": f"standup note {i}"} for i in range(3)]
    result = await BatchSaver(settings, Stores(graph, edge_store, witness)).save(namespace, items)
    ids = [r["id"] for r in result["results"] if r["success"] is True]
    assert (result["saved"], witness.opened) == (3, [1])
    assert witness.texts == ["standup note 0", "standup note 1", "standup note 2"]
    assert await edge_store.existing_ids(ids) == set(ids)
