"""Reconcile keeps namespaces apart: vectors it writes back carry their memory's namespace, and
the same key in two namespaces stays two memories, each found only in its own. A full reconcile
repairs its own vector storage's memories only."""

from __future__ import annotations

import uuid
from pathlib import Path

from bench.common import open_driver
from service.config import Settings
from service.core.memories import MemoryService
from service.core.models import SaveInput
from service.core.read.retrieval import Retrieval
from service.core.search_inputs import RetrieveInput
from service.core.stores import Stores
from service.core.upkeep.context_index import ContextIndex
from service.core.upkeep.reconcile import Reconciler
from service.stores.embeddings import LocalMiniLM
from service.stores.vector_store import EdgeVectorStore, VectorFilter


async def test_vectors_reconcile_writes_back_stay_in_their_namespace(
    memories: MemoryService,
    edge_store: EdgeVectorStore,
    embedder: LocalMiniLM,
    retrieval: Retrieval,
) -> None:
    home, other = (f"rec-{uuid.uuid4().hex[:10]}" for _ in range(2))
    text = "the quarterly billing export runs at midnight"
    mine = await memories.save(home, SaveInput(key="shared", content=text))
    extra = await memories.save(home, SaveInput(key="extra", content="unrelated gardening note"))
    theirs = await memories.save(other, SaveInput(key="shared", content=text + " in Oslo"))
    lost = [mine["memory"]["id"], extra["memory"]["id"]]
    await edge_store.delete(lost)
    report = await Reconciler(memories.stores.graph, edge_store, embedder).run(full=True)
    query = (await embedder.embed([text]))[0]
    hits = await edge_store.search(query, VectorFilter(namespace=other), limit=10)
    recalled = await retrieval.retrieve(other, RetrieveInput(query=text, search_mode="vector"))
    # Both lost vectors are written back: found missing, or still pending their synced mark.
    assert report.vectors_written >= 2
    assert await edge_store.existing_ids(lost) == set(lost)
    assert (await edge_store.count(home), await edge_store.count(other)) == (2, 1)
    assert [hit.id for hit in hits] == [theirs["memory"]["id"]]
    assert [r["id"] for r in recalled["results"]] == [theirs["memory"]["id"]]


async def test_a_full_reconcile_leaves_the_memories_of_another_vector_storage_alone(
    settings: Settings,
    memories: MemoryService,
    edge_store: EdgeVectorStore,
    embedder: LocalMiniLM,
    context_index: ContextIndex,
    namespace: str,
    tmp_path: Path,
) -> None:
    other_storage = EdgeVectorStore(tmp_path / "other-service", embedder.dimensions)
    await other_storage.open()
    try:
        other_service = MemoryService(
            settings, Stores(memories.stores.graph, other_storage, embedder)
        )
        saved = await other_service.save(namespace, SaveInput(key="theirs", content="elsewhere"))
        await other_service.close()
        theirs = saved["memory"]["id"]
        await set_states(settings, theirs, "ok")

        await Reconciler(memories.stores.graph, edge_store, embedder, context_index).run(
            full=True, drain_context=False
        )

        assert await states(settings, theirs) == ("ok", "ok")
        assert await other_storage.existing_ids([theirs]) == {theirs}
    finally:
        await other_storage.close()


async def set_states(settings: Settings, memory_id: str, state: str) -> None:
    """The memory's vector and context both stored, as once its refreshes are done."""
    async with open_driver(settings.neo4j) as driver:
        await driver.execute_query(
            "MATCH (m:Memory {id: $id}) SET m.vector_state = $state, m.context_state = $state",
            id=memory_id,
            state=state,
        )


async def states(settings: Settings, memory_id: str) -> tuple[str, str]:
    async with open_driver(settings.neo4j) as driver:
        found = await driver.execute_query(
            "MATCH (m:Memory {id: $id}) RETURN m.vector_state AS v, m.context_state AS c",
            id=memory_id,
        )
    return found.records[0]["v"], found.records[0]["c"]
