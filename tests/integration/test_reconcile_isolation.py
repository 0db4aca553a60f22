"""Reconcile keeps namespaces apart: vectors it writes back carry their memory's namespace, and
the same key in two namespaces stays two memories, each found only in its own."""

from __future__ import annotations

import uuid

from service.core.memories import MemoryService
from service.core.models import SaveInput
from service.core.read.retrieval import Retrieval
from service.core.search_inputs import RetrieveInput
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
