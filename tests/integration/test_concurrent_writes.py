"""Writes racing on one memory: partial updates of different fields all land, saves (single or
batch) of one new key end as one memory with one vector, every caller answered with success,
concurrent links of one pair count once, racing deletes of one memory delete it once, a memory
saved, updated, linked and deleted at once answers every caller, and cleanup never evicts a
memory saved after it chose it."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import cast

from service.config import Settings
from service.core.memories import MemoryService
from service.core.models import SaveInput, UpdateInput
from service.core.results import GetResult
from service.core.stores import Stores
from service.core.upkeep.lifecycle import remove_memories
from service.core.write.batch import BatchSaver
from service.errors import NotFound
from service.stores.graph_store import GraphStore
from service.stores.vector_store import EdgeVectorStore

ROUNDS = 8
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


async def test_concurrent_updates_of_different_fields_all_land(
    memories: MemoryService, namespace: str
) -> None:
    for n in range(ROUNDS):
        key = f"shared-{n}"
        await memories.save(namespace, SaveInput(key=key, content="as first saved", score=10))
        changes = [
            UpdateInput(title=f"title {n}"),
            UpdateInput(tags=[f"tag-{n}"]),
            UpdateInput(score=70 + n),
            UpdateInput(metadata={"round": n}),
        ]
        await asyncio.gather(*(memories.update(namespace, key, c) for c in changes))
        stored = (await memories.get(namespace, keys=[key]))["memories"][0]
        assert (stored["title"], stored["tags"], stored["score"], stored["metadata"]) == (
            f"title {n}",
            [f"tag-{n}"],
            70 + n,
            {"round": n},
        )
        assert stored["content"] == "as first saved"


async def test_racing_saves_of_one_new_key_make_one_memory_and_all_succeed(
    memories: MemoryService, edge_store: EdgeVectorStore, namespace: str
) -> None:
    for n in range(ROUNDS):
        key = f"racing-{n}"
        saves = [
            memories.save(namespace, SaveInput(key=key, content=f"version {v} of round {n}"))
            for v in range(8)
        ]
        answers = await asyncio.gather(*saves)
        assert sorted(a["created"] for a in answers) == [False] * 7 + [True]
        assert len({a["memory"]["id"] for a in answers}) == 1
    found = await memories.stores.graph.read(
        "memory_resolve_refs",
        ids=[],
        keys=[f"racing-{n}" for n in range(ROUNDS)],
        namespace=namespace,
    )
    assert len(found) == ROUNDS
    assert await edge_store.count(namespace) == ROUNDS


async def test_racing_batches_with_one_new_key_make_one_memory_and_report_every_item_saved(
    settings: Settings,
    graph: GraphStore,
    edge_store: EdgeVectorStore,
    memories: MemoryService,
    namespace: str,
) -> None:
    saver = BatchSaver(settings, Stores(graph, edge_store, memories.stores.embedder))
    batches = [
        [{"key": "shared", "content": f"from batch {b}"}, {"key": f"own-{b}", "content": "x"}]
        for b in range(6)
    ]
    answers = await asyncio.gather(*(saver.save(namespace, items) for items in batches))
    assert [a["saved"] for a in answers] == [2] * 6
    firsts = [a["results"][0] for a in answers]
    created = sorted(first["created"] for first in firsts if first["success"] is True)
    assert created == [False] * 5 + [True]
    assert len({a["results"][0]["id"] for a in answers}) == 1
    assert await edge_store.count(namespace) == 7


async def test_concurrent_links_of_one_pair_make_one_link_counted_once(
    memories: MemoryService, namespace: str
) -> None:
    for key in ("from", "to"):
        await memories.save(namespace, SaveInput(key=key, content=f"the {key} end"))
    weights = [0.1 * n for n in range(1, 9)]
    await asyncio.gather(*(memories.link(namespace, "from", "to", weight=w) for w in weights))
    links = (await memories.get(namespace, keys=["from"]))["memories"][0]["links"]
    assert len(links) == 1
    assert links[0]["weight"] in weights
    assert (await memories.lifecycle.stats(namespace))["linkCount"] == 1


async def test_racing_deletes_of_one_memory_delete_it_once_and_the_counters_follow(
    memories: MemoryService, namespace: str
) -> None:
    for n in range(ROUNDS):
        await memories.save(namespace, SaveInput(key=f"doomed-{n}", content=f"round {n}"))
        answers = await asyncio.gather(
            *(memories.delete(namespace, keys=[f"doomed-{n}"]) for _ in range(6))
        )
        assert sorted(a["deleted"] for a in answers) == [0] * 5 + [1]
    stats = await memories.lifecycle.stats(namespace)
    assert (stats["memoryCount"], stats["linkCount"]) == (0, 0)


async def test_a_memory_saved_updated_linked_and_deleted_at_once_answers_every_caller(
    memories: MemoryService, namespace: str
) -> None:
    await memories.save(namespace, SaveInput(key="anchor", content="always here"))
    for n in range(ROUNDS):
        key = f"contested-{n}"
        await memories.save(namespace, SaveInput(key=key, content=f"round {n}"))
        outcomes = await asyncio.gather(
            memories.delete(namespace, keys=[key]),
            memories.save(namespace, SaveInput(key=key, content=f"round {n}, saved again")),
            memories.update(namespace, key, UpdateInput(title=f"title {n}")),
            memories.link(namespace, key, "anchor", weight=0.7),
            memories.link(namespace, "anchor", key, weight=0.3),
            memories.get(namespace, keys=[key]),
            memories.delete(namespace, keys=[key]),
            memories.get(namespace, keys=[key]),
            return_exceptions=True,
        )
        failures = [o for o in outcomes if isinstance(o, BaseException)]
        assert [f for f in failures if not isinstance(f, NotFound)] == []
        for got in (outcomes[5], outcomes[7]):  # the gets: the memory whole, or missing
            assert isinstance(got, dict), got
            views = cast(GetResult, got)["memories"]
            assert [(m["key"], bool(m["id"])) for m in views] in ([], [(key, True)])
    stored = await memories.get(
        namespace, keys=["anchor", *(f"contested-{n}" for n in range(ROUNDS))]
    )
    links = sum(len(m["links"]) for m in stored["memories"])
    stats = await memories.lifecycle.stats(namespace)
    assert (stats["memoryCount"], stats["linkCount"]) == (len(stored["memories"]), links)


async def test_cleanup_keeps_a_victim_saved_after_it_was_chosen_and_evicts_one_left_alone(
    memories: MemoryService, namespace: str
) -> None:
    for key in ("busy", "idle"):
        await memories.save(namespace, SaveInput(key=key, content=f"{key}, as first saved"))
    rows = await memories.stores.graph.read(
        "cleanup_candidates",
        namespace=namespace,
        protected=[],
        keep=[],
        limit=10,
        after_accessed=EPOCH,
        after_created=EPOCH,
        after_id="",
    )
    seen = {row["id"]: row["seen"] for row in rows}
    await memories.update(namespace, "busy", UpdateInput(content="busy, saved again"))
    removed = await remove_memories(
        memories.stores, memories.committed, namespace, list(seen), seen
    )
    assert [row["key"] for row in removed] == ["idle"]
    kept = await memories.get(namespace, keys=["busy", "idle"])
    assert [m["content"] for m in kept["memories"]] == ["busy, saved again"]
    assert kept["missing"] == ["idle"]
