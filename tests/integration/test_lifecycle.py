"""memory_timeline, memory_stats and memory_cleanup against the real Neo4j and Qdrant Edge:
exact windows, exact counters and exact LRU evictions."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bench.common import open_driver
from service.config import Settings
from service.core.jsonl import numbered_lines
from service.core.memories import MemoryService
from service.core.models import SaveInput, UpdateInput, now_utc
from service.core.stores import Stores
from service.core.upkeep.backup import export_lines, restore
from service.core.write.batch import BatchSaver
from service.core.write.save_plan import plan_memory
from service.errors import InvalidParameter, NotFound
from service.stores.embeddings import LocalMiniLM
from service.stores.graph_store import GraphStore
from service.stores.vector_store import EdgeVectorStore
from tests.conftest import save_in_batches
from tests.plans import profiled


def save_input(key: str, **fields: Any) -> SaveInput:
    return SaveInput.model_validate({"key": key, "content": f"content of {key}", **fields})


def size_of(data: SaveInput) -> int:
    """The contract's logical size of one memory (4 × 384 for its vector)."""
    return int(plan_memory("ns", data, "id", data.key, now_utc(), "m", 384).fields["size_bytes"])


def ordered_ids(count: int) -> list[str]:
    """Ids that sort in the order given (so ties on created_at break as listed)."""
    return sorted(str(uuid.uuid4()) for _ in range(count))


def with_budget(
    settings: Settings,
    graph: GraphStore,
    edge_store: EdgeVectorStore,
    embedder: LocalMiniLM,
    context_store: EdgeVectorStore,
    max_size_bytes: int,
) -> MemoryService:
    memory = settings.memory.model_copy(update={"max_size_bytes": max_size_bytes})
    budgeted = settings.model_copy(update={"memory": memory})
    return MemoryService(budgeted, Stores(graph, edge_store, embedder, context_store))


async def save_all(memories: MemoryService, namespace: str, keys: list[str], **fields: Any) -> None:
    for key, memory_id in zip(keys, ordered_ids(len(keys)), strict=True):
        await memories.save(namespace, save_input(key, id=memory_id, **fields))


# -- timeline -------------------------------------------------------------------------------


async def test_timeline_windows_the_anchor_with_positions_and_distances(
    memories: MemoryService, namespace: str
) -> None:
    keys = [f"t{i}" for i in range(7)]
    await save_all(memories, namespace, keys)
    result = await memories.lifecycle.timeline(namespace, "t3", window=2)
    assert [(e["key"], e["position"], e["distanceFromAnchor"]) for e in result["timeline"]] == [
        ("t1", "before", 2),
        ("t2", "before", 1),
        ("t3", "anchor", 0),
        ("t4", "after", 1),
        ("t5", "after", 2),
    ]
    anchor = result["timeline"][2]
    assert result["anchor"] == anchor["id"]
    assert set(anchor) == {
        "id", "key", "title", "summary", "type", "createdAt", "position",
        "distanceFromAnchor", "links",
    }  # fmt: skip


async def test_timeline_reads_no_memory_of_another_namespace(
    memories: MemoryService, namespace: str
) -> None:
    await save_all(memories, namespace, [f"t{i}" for i in range(4)])
    newer = [save_input(f"n{i}") for i in range(300)]  # saved after, in another namespace
    await save_in_batches(memories, f"{namespace}-newer", newer)
    found = await memories.get(namespace, keys=["t1", "t2", "t3"])
    ids = {m["key"]: m["id"] for m in found["memories"]}
    params = {"anchor_id": ids["t3"], "namespace": namespace, "window": 2}
    records, hits = await profiled(memories.settings.neo4j, "memory_timeline", params)
    assert [(r["before"], r["after"]) for r in records] == [([ids["t2"], ids["t1"]], [])]
    assert hits < 100  # the store-wide created_at index read the 300 newer: 600+


async def test_timeline_at_the_start_and_the_end_of_the_history(
    memories: MemoryService, namespace: str
) -> None:
    keys = [f"t{i}" for i in range(4)]
    await save_all(memories, namespace, keys)
    start = await memories.lifecycle.timeline(namespace, "t0", window=5)
    end = await memories.lifecycle.timeline(namespace, "t3", window=2)
    assert [(e["key"], e["position"]) for e in start["timeline"]] == [
        ("t0", "anchor"),
        ("t1", "after"),
        ("t2", "after"),
        ("t3", "after"),
    ]
    assert [(e["key"], e["distanceFromAnchor"]) for e in end["timeline"]] == [
        ("t1", 2),
        ("t2", 1),
        ("t3", 0),
    ]


async def test_timeline_orders_memories_of_one_millisecond_by_id_on_every_side(
    memories: MemoryService, namespace: str
) -> None:
    await save_all(memories, namespace, ["early-0", "early-1"])
    ties = [f"tie-{i}" for i in range(6)]
    batch = [save_input(key, id=i) for key, i in zip(ties, ordered_ids(6), strict=True)]
    await save_in_batches(memories, namespace, batch)  # one batch: one created_at for all six
    await save_all(memories, namespace, ["late"])
    got = await memories.get(namespace, keys=ties)
    assert len({m["created_at"] for m in got["memories"]}) == 1
    history = ["early-0", "early-1", *ties, "late"]
    for position, key in enumerate(history):
        result = await memories.lifecycle.timeline(namespace, key, window=3)
        low = max(0, position - 3)
        assert [e["key"] for e in result["timeline"]] == history[low : position + 4], key


async def test_timeline_of_an_unknown_anchor_or_window_is_refused(
    memories: MemoryService, namespace: str
) -> None:
    await save_all(memories, namespace, ["only"])
    with pytest.raises(NotFound, match="Memory not found: nope"):
        await memories.lifecycle.timeline(namespace, "nope")
    with pytest.raises(InvalidParameter, match="window"):
        await memories.lifecycle.timeline(namespace, "only", window=51)
    alone = await memories.lifecycle.timeline(namespace, "only")
    assert [e["position"] for e in alone["timeline"]] == ["anchor"]


# -- stats ----------------------------------------------------------------------------------


async def test_stats_count_exactly_after_saves_links_updates_and_deletes(
    memories: MemoryService, namespace: str
) -> None:
    empty = await memories.lifecycle.stats(namespace)
    assert (empty["dbSizeBytes"], empty["memoryCount"], empty["oldestMemory"]) == (0, 0, None)
    inputs = [
        save_input("a", session_id="s1"),
        save_input("b", session_id="s1", tags=["x", "yz"]),
        save_input("c", session_id="s2", metadata={"k": "v"}),
        save_input("d"),
    ]
    saved = [(await memories.save(namespace, data))["memory"] for data in inputs]
    await memories.link(namespace, "a", "b")
    await memories.link(namespace, "b", "c")
    await memories.link(namespace, "a", "b", weight=0.9)  # an update, not a new link
    bigger = save_input("d", content="a longer content of d, with ünïcödé")
    await memories.save(namespace, bigger)
    stats = await memories.lifecycle.stats(namespace)
    sizes = sum(map(size_of, inputs[:3])) + size_of(bigger)
    assert stats == {
        "success": True,
        "dbSizeBytes": sizes + 2 * 64,
        "memoryCount": 4,
        "linkCount": 2,
        "sessionCount": 2,
        "oldestMemory": saved[0]["created_at"],
        "newestMemory": saved[3]["created_at"],
        "maxSizeBytes": 524_288_000,
        "usagePercent": round((sizes + 128) * 100 / 524_288_000, 2),
        "indexHealth": "good",
        "indexDetails": stats["indexDetails"],
    }
    assert stats["indexDetails"]["vectorCount"] == 4
    await memories.delete(namespace, keys=["b"])
    after = await memories.lifecycle.stats(namespace)
    assert (after["memoryCount"], after["linkCount"], after["sessionCount"]) == (3, 0, 2)
    assert after["dbSizeBytes"] == sizes - size_of(inputs[1])
    await memories.link(namespace, "a", "c")
    await memories.link(namespace, "a", "c", remove=True)
    assert (await memories.lifecycle.stats(namespace))["linkCount"] == 0


RECOUNT = """
MATCH (m:Memory {namespace: $namespace})
CALL (m) {
  OPTIONAL MATCH (m)-[r:LINK]->(:Memory)
  RETURN count(r) AS links
}
RETURN count(m) AS memories, sum(m.size_bytes) AS size_bytes, sum(links) AS links,
       count(DISTINCT m.session_id) AS sessions
"""


async def counted(memories: MemoryService, settings: Settings, namespace: str) -> list[int]:
    """memoryCount, dbSizeBytes, linkCount and sessionCount of memory_stats (its counters),
    each checked against a scan of the namespace."""
    async with open_driver(settings.neo4j) as driver:
        records, _, _ = await driver.execute_query(RECOUNT, namespace=namespace)
    row = records[0]
    scanned = [row["memories"], row["size_bytes"] + 64 * row["links"], row["links"]]
    stats = await memories.lifecycle.stats(namespace)
    figures = [stats["memoryCount"], stats["dbSizeBytes"], stats["linkCount"]]
    assert (figures, stats["sessionCount"]) == (scanned, row["sessions"])
    return [*figures[::2], stats["sessionCount"]]


async def test_stats_counters_stay_exact_through_every_write_path(
    memories: MemoryService,
    batches: BatchSaver,
    settings: Settings,
    graph: GraphStore,
    edge_store: EdgeVectorStore,
    embedder: LocalMiniLM,
    context_store: EdgeVectorStore,
    namespace: str,
) -> None:
    for key, session in (("a", "s1"), ("b", "s1"), ("c", "s2")):
        await memories.save(namespace, save_input(key, session_id=session))
    assert await counted(memories, settings, namespace) == [3, 0, 2]
    await batches.save(
        namespace,
        [
            {"key": "d", "content": "content of d", "session_id": "s2"},
            {"key": "e", "content": "content of e", "session_id": "s3"},
            {"key": "f", "content": "content of f"},
            {"key": "a", "content": "content of a", "session_id": "s4"},
        ],
    )
    await memories.link(namespace, "e", "d")
    assert await counted(memories, settings, namespace) == [6, 1, 4]  # s1 s2 s3 s4
    await memories.update(namespace, "b", UpdateInput(session_id="s4"))  # s1 is left empty
    await memories.update(namespace, "c", UpdateInput(session_id=None))
    await memories.link(namespace, "a", "f")
    assert await counted(memories, settings, namespace) == [6, 2, 3]  # s2 s3 s4
    copy = f"{namespace}-copy"
    lines = [json.dumps(line).encode() async for line in export_lines(graph, namespace)]
    await restore(batches, copy, numbered_lines(as_stream(lines), 1024**2))
    assert await counted(memories, settings, copy) == [6, 2, 3]
    await restore(batches, copy, numbered_lines(as_stream(lines), 1024**2))  # nothing new
    assert await counted(memories, settings, copy) == [6, 2, 3]
    await memories.delete(namespace, keys=["e", "a"])  # s3 goes, s4 stays with b
    assert await counted(memories, settings, namespace) == [4, 0, 2]
    tiny = with_budget(settings, graph, edge_store, embedder, context_store, 1)
    await tiny.lifecycle.cleanup(copy)
    assert await counted(memories, settings, copy) == [0, 0, 0]


async def as_stream(lines: list[bytes]) -> AsyncIterator[bytes]:
    yield b"\n".join(lines) + b"\n"


async def test_stats_report_missing_vectors_as_degraded_health(
    memories: MemoryService, namespace: str, edge_store: EdgeVectorStore
) -> None:
    keys = [f"h{i}" for i in range(12)]
    await save_all(memories, namespace, keys)
    first = await memories.get(namespace, keys=["h0"])
    await edge_store.delete([first["memories"][0]["id"]])
    stats = await memories.lifecycle.stats(namespace)
    assert stats["indexHealth"] == "degraded"
    assert stats["indexDetails"]["missingVectors"] == 1
    await edge_store.delete(
        [m["id"] for m in (await memories.get(namespace, keys=keys[1:3]))["memories"]]
    )
    assert (await memories.lifecycle.stats(namespace))["indexHealth"] == "needs-rebuild"


# -- cleanup --------------------------------------------------------------------------------


async def test_cleanup_evicts_least_recently_used_first_and_never_protected_types(
    memories: MemoryService,
    namespace: str,
    settings: Settings,
    graph: GraphStore,
    edge_store: EdgeVectorStore,
    embedder: LocalMiniLM,
    context_store: EdgeVectorStore,
) -> None:
    keys = [f"m{i}" for i in range(6)]
    await save_all(memories, namespace, keys)
    await memories.save(namespace, save_input("d0", type="decision"))
    await memories.get(namespace, keys=["m0"])
    await memories.get(namespace, keys=["m1"])  # m0 and m1 are now the most recently used
    one, decision = size_of(save_input("m0")), size_of(save_input("d0", type="decision"))
    budget = 4 * one + decision
    target = int(budget * 0.85)
    evicting = next(k for k in range(7) if 6 * one + decision - k * one <= target)
    assert evicting == 3
    small = with_budget(settings, graph, edge_store, embedder, context_store, budget)
    unforced = await memories.lifecycle.cleanup(namespace)  # under the default budget
    assert (unforced["evictedCount"], unforced["evictedIds"]) == (0, [])
    dry = await small.lifecycle.cleanup(namespace, force=True, dry_run=True)
    by_key = await memories.reader.resolve(namespace, keys=keys)  # no access tracking
    expected = [by_key["m2"], by_key["m3"], by_key["m4"]]
    assert dry == {
        "success": True,
        "evictedCount": 3,
        "freedBytes": 3 * one,
        "evictedIds": expected,
    }
    assert (await memories.lifecycle.stats(namespace))["memoryCount"] == 7
    assert await small.lifecycle.cleanup(namespace, force=True) == dry
    stats = await memories.lifecycle.stats(namespace)
    assert (stats["memoryCount"], stats["dbSizeBytes"]) == (4, 3 * one + decision)
    assert stats["indexDetails"]["vectorCount"] == 4
    tiny = with_budget(settings, graph, edge_store, embedder, context_store, 1)
    rest = await tiny.lifecycle.cleanup(namespace)
    assert rest["evictedIds"] == [by_key["m5"], by_key["m0"], by_key["m1"]]
    remaining = await memories.lifecycle.stats(namespace)
    assert (remaining["memoryCount"], remaining["dbSizeBytes"]) == (1, decision)


async def test_cleanup_frees_each_link_once_and_stats_agree_with_freed_bytes(
    memories: MemoryService,
    namespace: str,
    settings: Settings,
    graph: GraphStore,
    edge_store: EdgeVectorStore,
    embedder: LocalMiniLM,
    context_store: EdgeVectorStore,
) -> None:
    await save_all(memories, namespace, ["l0", "l1", "l2"])
    await memories.link(namespace, "l0", "l1")
    await memories.link(namespace, "l1", "l0")
    await memories.link(namespace, "l1", "l2")
    await memories.link(namespace, "l2", "l2")
    before = await memories.lifecycle.stats(namespace)
    assert before["linkCount"] == 4
    tiny = with_budget(settings, graph, edge_store, embedder, context_store, 1)
    result = await tiny.lifecycle.cleanup(namespace)
    after = await memories.lifecycle.stats(namespace)
    assert result["evictedCount"] == 3
    assert result["freedBytes"] == 3 * size_of(save_input("l0")) + 4 * 64
    assert before["dbSizeBytes"] - after["dbSizeBytes"] == result["freedBytes"]
    assert (after["dbSizeBytes"], after["linkCount"]) == (0, 0)


async def test_a_save_over_the_budget_evicts_down_to_85_percent_but_keeps_the_new_memory(
    namespace: str,
    settings: Settings,
    graph: GraphStore,
    edge_store: EdgeVectorStore,
    embedder: LocalMiniLM,
    context_store: EdgeVectorStore,
) -> None:
    one = size_of(save_input("a0"))
    small = with_budget(settings, graph, edge_store, embedder, context_store, 5 * one)
    keys = [f"a{i}" for i in range(6)]
    await save_all(small, namespace, keys[:5])
    assert (await small.lifecycle.stats(namespace))["memoryCount"] == 5  # at the budget: kept
    await save_all(small, namespace, keys[5:])
    stats = await small.lifecycle.stats(namespace)
    assert (stats["memoryCount"], stats["dbSizeBytes"]) == (4, 4 * one)
    assert stats["dbSizeBytes"] <= 0.85 * 5 * one
    left = await small.get(namespace, keys=keys)
    assert left["missing"] == ["a0", "a1"]
