"""A write whose request is cancelled after Neo4j committed (past the request deadline, or its
client gone) still writes its vectors and clears its pending marks: the stores agree without
waiting for the next reconcile."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from service.config import Settings
from service.core.memories import MemoryService
from service.core.models import SaveInput
from service.core.stores import Stores
from service.core.write.batch import BatchSaver
from service.core.write.committed import CommittedWork
from service.stores.graph_store import GraphStore
from service.stores.vector_store import EdgeVectorStore, VectorPoint
from tests.integration.marks import service_with_marks


class HeldWrites:
    """Holds each Qdrant upsert and delete of the store until `release`; `entered` is set once
    one waits."""

    def __init__(self, store: EdgeVectorStore) -> None:
        self.inner_upsert, self.inner_delete = store.upsert, store.delete
        self.entered = asyncio.Event()
        self.released = asyncio.Event()

    async def upsert(self, points: Sequence[VectorPoint]) -> None:
        await self._held()
        await self.inner_upsert(points)

    async def delete(self, ids: Sequence[str]) -> None:
        await self._held()
        await self.inner_delete(ids)

    async def _held(self) -> None:
        self.entered.set()
        await self.released.wait()

    def release(self) -> None:
        self.released.set()


def hold_writes(store: EdgeVectorStore, monkeypatch: pytest.MonkeyPatch) -> HeldWrites:
    held = HeldWrites(store)
    monkeypatch.setattr(store, "upsert", held.upsert)
    monkeypatch.setattr(store, "delete", held.delete)
    return held


async def cancel_once_held(write: asyncio.Task[Any], held: HeldWrites) -> None:
    """Cancel `write` while its Qdrant write is held (after the commit), then let it go on."""
    await asyncio.wait_for(held.entered.wait(), 30)
    write.cancel()
    with pytest.raises(asyncio.CancelledError):
        await write
    held.release()


async def pending_vectors(graph: GraphStore, ids: Sequence[str]) -> list[str]:
    rows = await graph.read("vector_pending", limit=100_000, vector_store=None)
    return sorted(row["id"] for row in rows if row["id"] in ids)


async def test_a_cancelled_save_still_writes_its_vector_and_clears_its_mark(
    memories: MemoryService,
    graph: GraphStore,
    edge_store: EdgeVectorStore,
    namespace: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    service = service_with_marks(memories, delay_s=0.0)
    held = hold_writes(edge_store, monkeypatch)
    body = SaveInput(key="late", content="The deploy freeze starts on Friday at noon")
    write = asyncio.create_task(service.save(namespace, body))
    await cancel_once_held(write, held)
    await service.close()  # the committed work, then the queued mark
    saved = (await service.get(namespace, keys=["late"]))["memories"][0]
    assert (await edge_store.vectors_of([saved["id"]])).keys() == {saved["id"]}
    assert await pending_vectors(graph, [saved["id"]]) == []


async def test_a_cancelled_batch_still_writes_its_vectors_and_clears_its_marks(
    settings: Settings,
    graph: GraphStore,
    edge_store: EdgeVectorStore,
    memories: MemoryService,
    namespace: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    committed = CommittedWork()
    saver = BatchSaver(settings, Stores(graph, edge_store, memories.stores.embedder), committed)
    held = hold_writes(edge_store, monkeypatch)
    items = [{"key": f"turn-{n}", "content": f"Turn {n} of the release planning"} for n in range(3)]
    write = asyncio.create_task(saver.save(namespace, items))
    await cancel_once_held(write, held)
    await committed.close()
    found = await memories.get(namespace, keys=[item["key"] for item in items])
    ids = [memory["id"] for memory in found["memories"]]
    assert len(ids) == 3
    assert (await edge_store.vectors_of(ids)).keys() == set(ids)
    assert await pending_vectors(graph, ids) == []


async def test_a_cancelled_delete_still_deletes_the_vector(
    memories: MemoryService,
    edge_store: EdgeVectorStore,
    namespace: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    saved = await memories.save(namespace, SaveInput(key="gone", content="An obsolete runbook"))
    memory_id = saved["memory"]["id"]
    held = hold_writes(edge_store, monkeypatch)
    write = asyncio.create_task(memories.delete(namespace, keys=["gone"]))
    await cancel_once_held(write, held)
    await memories.committed.close()
    assert await edge_store.vectors_of([memory_id]) == {}
    assert (await memories.get(namespace, keys=["gone"]))["missing"] == ["gone"]
