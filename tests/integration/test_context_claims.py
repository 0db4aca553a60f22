"""The context indexer claims its work in Neo4j: processes writing to one vector storage split the
backlog and never refresh a memory twice, a crashed claimer's leases expire, a process with
other vector storage (another data folder on the same Neo4j) never takes the work, and the most
recent memories come first unless older ones have waited too long."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from neo4j import AsyncSession

from bench.common import open_driver
from service.config import Settings
from service.core.memories import MemoryService
from service.core.models import LinkSpec, SaveInput
from service.core.stores import Stores
from service.core.upkeep.context_index import (
    OVERDUE_S,
    PENDING,
    VECTOR_WAIT_S,
    ContextIndex,
    claim_params,
)
from service.stores.cypher_library import CypherLibrary
from service.stores.embeddings import LocalMiniLM
from service.stores.graph_store import GraphStore
from service.stores.vector_store import EdgeVectorStore, VectorStore
from tests.conftest import save_in_batches
from tests.plans import profiled


class RecordingIndex(ContextIndex):
    """A real indexer that also keeps the ids of every memory it claimed, in each pass (the
    first, `claimed`, and the embedding one, `embedded`)."""

    claimed: list[str]
    embedded: list[str]

    async def claim(self, lease: str, limit: int, state: str = PENDING) -> list[dict[str, Any]]:
        rows = await super().claim(lease, limit, state)
        (self.claimed if state == PENDING else self.embedded).extend(row["id"] for row in rows)
        return rows


def indexer(
    settings: Settings,
    graph: GraphStore,
    context_vectors: VectorStore,
    embedder: LocalMiniLM,
    owner: VectorStore,
    lease_s: float = 60.0,
) -> RecordingIndex:
    search = settings.search
    index = RecordingIndex(
        graph,
        context_vectors,
        embedder,
        search.context_neighbours,
        search.context_hops,
        owner=owner,
        lease_s=lease_s,
    )
    index.claimed, index.embedded = [], []
    return index


async def save_thread(memories: MemoryService, namespace: str, turns: int) -> list[str]:
    """`turns` memories, each linked to the one before (all pending their context)."""
    ids: list[str] = []
    for n in range(turns):
        links = [LinkSpec(key=f"turn-{n - 1}", type="next")] if n else []
        saved = await memories.save(
            namespace, SaveInput(key=f"turn-{n}", content=f"turn {n} of the thread", links=links)
        )
        ids.append(saved["memory"]["id"])
    return ids


async def test_a_process_with_other_vector_storage_never_takes_the_context_work(
    settings: Settings,
    graph: GraphStore,
    memories: MemoryService,
    context_index: ContextIndex,
    embedder: LocalMiniLM,
    namespace: str,
    tmp_path: Path,
) -> None:
    ids = await save_thread(memories, namespace, 3)
    others = EdgeVectorStore(tmp_path / "other", embedder.dimensions)
    other_contexts = EdgeVectorStore(tmp_path / "other-context", embedder.dimensions)
    await others.open()
    await other_contexts.open()
    try:
        stranger = indexer(settings, graph, other_contexts, embedder, owner=others)
        await stranger.refresh_all()
        assert set(stranger.claimed + stranger.embedded) & set(ids) == set()
        assert await other_contexts.count(namespace) == 0
        assert await context_index.backlog(namespace) == 3
    finally:
        await other_contexts.close()
        await others.close()
    await context_index.refresh_all()
    assert await context_index.backlog(namespace) == 0
    assert await context_index.vectors.existing_ids(ids) == set(ids)


async def test_two_indexers_of_one_storage_split_the_backlog_and_refresh_each_memory_once(
    settings: Settings,
    graph: GraphStore,
    memories: MemoryService,
    context_index: ContextIndex,
    embedder: LocalMiniLM,
    namespace: str,
) -> None:
    ids = await save_thread(memories, namespace, 40)
    first, second = (
        indexer(settings, graph, context_index.vectors, embedder, owner=memories.stores.vectors)
        for _ in range(2)
    )
    await asyncio.gather(first.refresh_all(), second.refresh_all())
    mine = set(ids)
    by_first, by_second = set(first.claimed) & mine, set(second.claimed) & mine
    assert by_first & by_second == set()
    assert by_first | by_second == mine
    assert len(first.claimed) == len(set(first.claimed))
    assert len(second.claimed) == len(set(second.claimed))
    embedded_first, embedded_second = set(first.embedded) & mine, set(second.embedded) & mine
    assert embedded_first & embedded_second == set()
    assert embedded_first | embedded_second == mine
    assert await context_index.backlog(namespace) == 0


async def test_the_leases_of_a_claimer_that_died_expire_and_its_work_is_taken_again(
    settings: Settings,
    graph: GraphStore,
    memories: MemoryService,
    context_index: ContextIndex,
    embedder: LocalMiniLM,
    namespace: str,
) -> None:
    ids = await save_thread(memories, namespace, 2)
    dead = indexer(
        settings, graph, context_index.vectors, embedder, owner=memories.stores.vectors, lease_s=3.0
    )
    await dead.claim("a-claim-never-finished", limit=100_000)  # then it "crashes"
    claimed_at = time.monotonic()
    assert set(ids) <= set(dead.claimed)
    survivor = indexer(
        settings, graph, context_index.vectors, embedder, owner=memories.stores.vectors
    )
    assert await taken_and_backlog(survivor, ids, context_index, namespace) == (set(), 2)
    await asyncio.sleep(max(0.0, 3.1 - (time.monotonic() - claimed_at)))
    assert await taken_and_backlog(survivor, ids, context_index, namespace) == (set(ids), 0)


async def test_a_memory_whose_vector_a_batch_is_still_writing_waits_for_it(
    settings: Settings,
    graph: GraphStore,
    memories: MemoryService,
    context_index: ContextIndex,
    embedder: LocalMiniLM,
    namespace: str,
) -> None:
    ids = await save_thread(memories, namespace, 2)
    await set_vector_state(settings, ids, "pending")  # as a batch leaves them before its vectors
    claimer = indexer(
        settings, graph, context_index.vectors, embedder, owner=memories.stores.vectors
    )
    assert await taken_and_backlog(claimer, ids, context_index, namespace) == (set(), 2)
    await set_vector_state(settings, ids, "ok")  # the batch's vectors are written
    assert await taken_and_backlog(claimer, ids, context_index, namespace) == (set(ids), 0)


async def test_a_memory_whose_vector_stays_pending_waits_no_longer_than_the_bound(
    settings: Settings,
    graph: GraphStore,
    memories: MemoryService,
    context_index: ContextIndex,
    embedder: LocalMiniLM,
    namespace: str,
) -> None:
    ids = await save_thread(memories, namespace, 2)
    await set_vector_state(settings, ids, "pending")  # a batch whose vector write failed
    claimer = indexer(
        settings, graph, context_index.vectors, embedder, owner=memories.stores.vectors
    )
    await set_waiting_since(settings, ids[:1], seconds_ago=VECTOR_WAIT_S + 1)
    assert await taken_and_backlog(claimer, ids, context_index, namespace) == ({ids[0]}, 1)


@pytest_asyncio.fixture
async def own_storage(
    settings: Settings, graph: GraphStore, embedder: LocalMiniLM, tmp_path: Path
) -> AsyncIterator[MemoryService]:
    """A memory service with vector storage of its own: its indexer sees no other test's work."""
    vectors = EdgeVectorStore(tmp_path / "own", embedder.dimensions)
    contexts = EdgeVectorStore(tmp_path / "own-context", embedder.dimensions)
    await vectors.open()
    await contexts.open()
    service = MemoryService(settings, Stores(graph, vectors, embedder, contexts))
    try:
        yield service
    finally:
        await service.close()
        await contexts.close()
        await vectors.close()


@pytest.fixture
def own_indexer(
    settings: Settings, graph: GraphStore, own_storage: MemoryService, embedder: LocalMiniLM
) -> RecordingIndex:
    """An indexer of the vector storage of `own_storage`."""
    stores = own_storage.stores
    assert stores.context_vectors is not None
    return indexer(settings, graph, stores.context_vectors, embedder, owner=stores.vectors)


async def claimed_ids(claimer: ContextIndex, limit: int) -> set[str]:
    rows = await claimer.claim(uuid.uuid4().hex, limit)
    return {row["id"] for row in rows}


async def test_the_most_recent_memories_are_claimed_first(
    own_storage: MemoryService, own_indexer: RecordingIndex, namespace: str
) -> None:
    ids = await save_thread(own_storage, namespace, 5)
    assert await claimed_ids(own_indexer, 2) == {ids[4], ids[3]}
    assert await claimed_ids(own_indexer, 2) == {ids[2], ids[1]}
    assert await claimed_ids(own_indexer, 2) == {ids[0]}


async def test_contexts_waiting_past_the_bound_take_half_of_a_claim_the_longest_wait_first(
    settings: Settings, own_storage: MemoryService, own_indexer: RecordingIndex, namespace: str
) -> None:
    ids = await save_thread(own_storage, namespace, 6)
    for n, seconds_ago in ((0, OVERDUE_S + 1), (1, OVERDUE_S + 3), (2, OVERDUE_S + 2)):
        await set_waiting_since(settings, [ids[n]], seconds_ago)
    assert await claimed_ids(own_indexer, 4) == {ids[1], ids[2], ids[5], ids[4]}
    assert await claimed_ids(own_indexer, 4) == {ids[0], ids[3]}


async def claimed_with_db_hits(settings: Settings, storage: MemoryService) -> tuple[set[str], int]:
    """A claim of 2 by `storage`'s indexer, profiled: the ids it took and its database hits."""
    search = settings.search
    params = claim_params(storage.stores.vectors.store_id, PENDING, uuid.uuid4().hex, 2, 60.0)
    params |= {"neighbours": search.context_neighbours, "hops": search.context_hops}
    records, hits = await profiled(settings.neo4j, "context_claim", params)
    return {record["id"] for record in records}, hits


def bulk(count: int) -> list[SaveInput]:
    return [SaveInput(key=f"bulk-{n}", content=f"bulk memory {n}") for n in range(count)]


async def hits_of_a_claim_alone(settings: Settings, storage: MemoryService, namespace: str) -> int:
    """The db hits of a claim of 2 that takes the two memories just saved to `storage` (held
    afterwards, so later claims read past them)."""
    alone = await save_thread(storage, namespace, 2)
    claimed, hits = await claimed_with_db_hits(settings, storage)
    assert claimed == set(alone)
    return hits


async def test_what_a_claim_reads_does_not_grow_with_the_backlog(
    settings: Settings, own_storage: MemoryService, namespace: str
) -> None:
    hits_alone = await hits_of_a_claim_alone(settings, own_storage, namespace)
    await save_in_batches(own_storage, namespace, bulk(300))
    newest = await save_thread(own_storage, f"{namespace}-b", 2)
    claimed, hits_behind = await claimed_with_db_hits(settings, own_storage)
    assert claimed == set(newest)
    # Past the two held by the first claim, a few more once some turn overdue in between;
    # sorting the 300 instead of reading the index's order adds 2,400.
    assert hits_behind - hits_alone < 300


async def test_a_claim_reads_nothing_of_another_storages_backlog(
    settings: Settings, own_storage: MemoryService, memories: MemoryService, namespace: str
) -> None:
    hits_alone = await hits_of_a_claim_alone(settings, own_storage, namespace)
    older = await save_thread(own_storage, f"{namespace}-b", 2)
    await save_in_batches(memories, namespace, bulk(300))  # newer, of the session's storage
    claimed, hits_beside = await claimed_with_db_hits(settings, own_storage)
    assert claimed == set(older)
    # The same claim again, past the two the first one holds: reading the other storage's 300
    # newer waiting memories first, as the statement before did, reads 1,500 more.
    assert hits_beside - hits_alone < 30


async def test_the_migration_labels_memories_saved_before_storage_was_recorded_until_saved(
    settings: Settings, graph: GraphStore, own_storage: MemoryService, namespace: str
) -> None:
    ids = await save_thread(own_storage, namespace, 2)
    async with open_driver(settings.neo4j) as driver:
        await driver.execute_query(
            "MATCH (m:Memory) WHERE m.id IN $ids REMOVE m.vector_store WITH count(*) AS done "
            "MATCH (s:SchemaMigration {name: '013_context_claim_by_storage'}) DELETE s",
            ids=ids,
        )
    assert await graph.migrate() == ["013_context_claim_by_storage"]
    assert await labels_of(settings, ids) == [["Memory", f"NS_{namespace}", "UnnamedStorage"]] * 2
    await own_storage.save(namespace, SaveInput(key="turn-0", content="turn 0, saved again"))
    assert await labels_of(settings, ids) == [
        ["Memory", f"NS_{namespace}"],
        ["Memory", f"NS_{namespace}", "UnnamedStorage"],
    ]
    await save_in_batches(own_storage, namespace, [SaveInput(key="turn-1", content="turn 1")])
    assert await labels_of(settings, ids) == [["Memory", f"NS_{namespace}"]] * 2


async def claims_of_legacy(
    settings: Settings, legacy: dict[str, float], claims: list[tuple[str, int]]
) -> list[set[str]]:
    """The ids each claim (vector storage, limit) takes once the memories of `legacy` lost
    their vector storage (as saved before it was recorded) and began to wait that many seconds
    ago; all in one transaction, rolled back: no other process (the session's servers claim any
    storage's legacy work) sees them as legacy, so none takes them first."""
    search = settings.search
    neighbours = {"neighbours": search.context_neighbours, "hops": search.context_hops}
    taken: list[set[str]] = []
    async with open_driver(settings.neo4j) as driver:
        untyped: Any = driver  # its session factory is partially typed
        session: AsyncSession = untyped.session()
        tx = await session.begin_transaction()
        try:
            await tx.run(
                "UNWIND keys($legacy) AS id MATCH (m:Memory {id: id}) "
                "REMOVE m.vector_store SET m:UnnamedStorage, "
                "m.context_since = timestamp() - toInteger($legacy[id] * 1000)",
                legacy=legacy,
            )
            for storage, limit in claims:
                params = claim_params(storage, PENDING, uuid.uuid4().hex, limit, 60.0)
                result = await tx.run(CypherLibrary().text("context_claim"), params | neighbours)
                taken.append({record["id"] async for record in result})
        finally:
            await tx.rollback()
            await session.close()
    return taken


async def test_any_storage_claims_memories_saved_before_storage_was_recorded(
    settings: Settings, own_storage: MemoryService, namespace: str
) -> None:
    ids = await save_thread(own_storage, namespace, 2)
    legacy = dict.fromkeys(ids, 1.0)
    taken = await claims_of_legacy(settings, legacy, [(f"edge-{uuid.uuid4()}", 100)])
    assert set(ids) <= taken[0]


async def test_a_memory_labelled_unnamed_but_saved_to_this_storage_is_claimed_once(
    settings: Settings, own_storage: MemoryService, own_indexer: RecordingIndex, namespace: str
) -> None:
    ids = await save_thread(own_storage, namespace, 2)
    async with open_driver(settings.neo4j) as driver:  # as a release before 013 saves them
        await driver.execute_query(
            "MATCH (m:Memory) WHERE m.id IN $ids SET m:UnnamedStorage", ids=ids
        )
    await set_waiting_since(settings, ids, OVERDUE_S + 1)
    rows = await own_indexer.claim(uuid.uuid4().hex, 100)
    assert sorted(row["id"] for row in rows if row["id"] in ids) == sorted(ids)


async def test_a_legacy_context_waiting_longest_takes_an_overdue_place_first(
    settings: Settings, own_storage: MemoryService, namespace: str
) -> None:
    ids = await save_thread(own_storage, namespace, 3)
    for n, seconds_ago in ((1, OVERDUE_S + 1), (2, OVERDUE_S + 2)):
        await set_waiting_since(settings, [ids[n]], seconds_ago)
    own = own_storage.stores.vectors.store_id
    # ids[0] lost its storage a year ago: the one overdue place is its, then the most recent
    # own one left; the next claim takes the last.
    taken = await claims_of_legacy(settings, {ids[0]: 365 * 86400.0}, [(own, 2), (own, 2)])
    assert taken == [{ids[0], ids[1]}, {ids[2]}]


async def labels_of(settings: Settings, ids: list[str]) -> list[list[str]]:
    """The sorted labels of each memory of `ids`, in their order."""
    async with open_driver(settings.neo4j) as driver:
        records, _, _ = await driver.execute_query(
            "UNWIND $ids AS id MATCH (m:Memory {id: id}) RETURN labels(m) AS labels", ids=ids
        )
    return [sorted(record["labels"]) for record in records]


async def taken_and_backlog(
    claimer: RecordingIndex, ids: list[str], context_index: ContextIndex, namespace: str
) -> tuple[set[str], int]:
    """After `claimer` refreshed all it may take: which of `ids` it ever claimed, and the
    namespace's backlog."""
    await claimer.refresh_all()
    return set(claimer.claimed) & set(ids), await context_index.backlog(namespace)


async def set_vector_state(settings: Settings, ids: list[str], state: str) -> None:
    async with open_driver(settings.neo4j) as driver:
        await driver.execute_query(
            "MATCH (m:Memory) WHERE m.id IN $ids SET m.vector_state = $state", ids=ids, state=state
        )


async def set_waiting_since(settings: Settings, ids: list[str], seconds_ago: float) -> None:
    """Move the time the memories' contexts began to wait `seconds_ago` back from now."""
    async with open_driver(settings.neo4j) as driver:
        await driver.execute_query(
            "MATCH (m:Memory) WHERE m.id IN $ids SET m.context_since = timestamp() - $ms",
            ids=ids,
            ms=int(seconds_ago * 1000),
        )
