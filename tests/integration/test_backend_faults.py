"""Faults of the vector engine and the embedder, against the real Neo4j, Qdrant Edge and model:
a save they refuse answers backend_unavailable and leaves nothing half-written (after reconcile
a memory is in both stores or in neither); retrieve_context goes on without the vector channels
and names them in `warnings`."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort
import pytest
import pytest_asyncio

from service.config import EmbeddingSettings, Settings
from service.core.memories import MemoryService
from service.core.models import SaveInput, embedding_text
from service.core.read.retrieval import Retrieval
from service.core.search_inputs import RetrieveInput
from service.core.stores import Stores
from service.core.upkeep.context_index import ContextIndex
from service.core.upkeep.reconcile import Reconciler
from service.core.write.batch import BatchSaver
from service.errors import BackendUnavailable, error_envelope
from service.stores.embeddings import ONNX_FAILURES, LocalMiniLM, OpenAICompatibleEmbedder
from service.stores.graph_store import GraphStore
from service.stores.neo4j_local import free_port
from service.stores.vector_store import EdgeVectorStore

EMBEDDER_DOWN = "embedder is unavailable: All connection attempts failed"


def save_input(key: str, content: str, **fields: Any) -> SaveInput:
    return SaveInput.model_validate({"key": key, "content": content, **fields})


@pytest.fixture
def qdrant_down(
    settings: Settings, graph: GraphStore, embedder: LocalMiniLM, data_dir: Path
) -> MemoryService:
    """The memory service over the session's Qdrant Edge storage, its shard not open here:
    every vector call fails (the storage's reconcile finishes the writes)."""
    down = EdgeVectorStore(data_dir / "edge-session", 384)
    return MemoryService(settings, Stores(graph, down, embedder))


@pytest_asyncio.fixture
async def embedder_down() -> AsyncIterator[OpenAICompatibleEmbedder]:
    """The openai-compatible provider pointed at a loopback port nothing listens on."""
    url = f"http://127.0.0.1:{free_port()}"
    down = OpenAICompatibleEmbedder(EmbeddingSettings(provider="openai-compatible", url=url))
    yield down
    await down.close()


@pytest_asyncio.fixture
async def embedder_hangs() -> AsyncIterator[OpenAICompatibleEmbedder]:
    """The openai-compatible provider against a server that takes connections and never
    answers: each call fails after its 1 s timeout, long after a save's Neo4j statements ran."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        url = f"http://127.0.0.1:{server.getsockname()[1]}"
        settings = EmbeddingSettings(provider="openai-compatible", url=url, timeout_s=1.0)
        hung = OpenAICompatibleEmbedder(settings)
        yield hung
        await hung.close()


async def stored(
    memories: MemoryService,
    store: EdgeVectorStore,
    model: LocalMiniLM,
    namespace: str,
    keys: list[str],
) -> dict[str, Any]:
    """What each store holds of a namespace: Neo4j's contents by key and memory count, the
    vector count, and the cosine of each memory's vector to the embedding of its text."""
    got = await memories.get(namespace, keys=keys)
    ids = [m["id"] for m in got["memories"]]
    vectors = await store.vectors_of(ids)
    texts = [embedding_text(m["title"], m["content"]) for m in got["memories"]]
    expected = model.embed_sync(texts)
    return {
        "contents": {m["key"]: m["content"] for m in got["memories"]},
        "memories": (await memories.lifecycle.stats(namespace))["memoryCount"],
        "vectors": await store.count(namespace),
        "cosines": [
            round(float(np.dot(vectors[i], e)), 3) if i in vectors else None
            for i, e in zip(ids, expected, strict=True)
        ],
    }


async def test_a_save_the_vector_engine_fails_is_refused_and_reconcile_writes_its_vector(
    memories: MemoryService,
    qdrant_down: MemoryService,
    graph: GraphStore,
    edge_store: EdgeVectorStore,
    embedder: LocalMiniLM,
    namespace: str,
) -> None:
    with pytest.raises(BackendUnavailable) as caught:
        await qdrant_down.save(namespace, save_input("runbook", "Restart the ingest workers"))
    memory_id = (await memories.reader.resolve(namespace, keys=["runbook"]))["runbook"]
    message = (
        "qdrant is unavailable: the embedded shard is not open (memory "
        f"{memory_id} is stored, its vector pending: saving it again, or the next reconcile, "
        "writes the vector)"
    )
    assert error_envelope(caught.value) == {
        "success": False,
        "error_type": "backend_unavailable",
        "message": message,
        "error": message,
    }
    assert caught.value.http_status == 503
    pending = await stored(memories, edge_store, embedder, namespace, ["runbook"])
    assert (pending["memories"], pending["vectors"], pending["cosines"]) == (1, 0, [None])
    await Reconciler(graph, edge_store, embedder).run()
    assert await stored(memories, edge_store, embedder, namespace, ["runbook"]) == {
        "contents": {"runbook": "Restart the ingest workers"},
        "memories": 1,
        "vectors": 1,
        "cosines": [1.0],
    }


async def test_an_update_the_vector_engine_failed_gets_its_new_vector_when_saved_again(
    memories: MemoryService,
    qdrant_down: MemoryService,
    edge_store: EdgeVectorStore,
    embedder: LocalMiniLM,
    namespace: str,
) -> None:
    await memories.save(namespace, save_input("port", "The API listens on port 8080"))
    with pytest.raises(BackendUnavailable):
        await qdrant_down.save(namespace, save_input("port", "The API listens on port 9090"))
    stale = await stored(memories, edge_store, embedder, namespace, ["port"])
    assert stale["contents"] == {"port": "The API listens on port 9090"}
    assert stale["cosines"][0] < 0.99  # Qdrant still holds the vector of the old text
    again = await memories.save(namespace, save_input("port", "The API listens on port 9090"))
    assert again["created"] is False
    assert await stored(memories, edge_store, embedder, namespace, ["port"]) == {
        "contents": {"port": "The API listens on port 9090"},
        "memories": 1,
        "vectors": 1,
        "cosines": [1.0],
    }


async def test_a_save_the_embedder_fails_is_refused_with_nothing_written(
    settings: Settings,
    memories: MemoryService,
    graph: GraphStore,
    edge_store: EdgeVectorStore,
    embedder: LocalMiniLM,
    embedder_hangs: OpenAICompatibleEmbedder,
    namespace: str,
) -> None:
    await memories.save(namespace, save_input("port", "The API listens on port 8080"))
    down = MemoryService(settings, Stores(graph, edge_store, embedder_hangs))
    refused: list[dict[str, Any]] = []
    for key, content in [("new", "A memory never stored"), ("port", "Port 9090 now")]:
        with pytest.raises(BackendUnavailable) as caught:
            await down.save(namespace, save_input(key, content))
        refused.append(error_envelope(caught.value))
    assert [(r["error_type"], r["message"]) for r in refused] == [
        ("backend_unavailable", "embedder is unavailable: ReadTimeout")
    ] * 2
    assert await stored(memories, edge_store, embedder, namespace, ["new", "port"]) == {
        "contents": {"port": "The API listens on port 8080"},
        "memories": 1,
        "vectors": 1,
        "cosines": [1.0],
    }
    pending = await graph.read("vector_pending", limit=100_000, vector_store=None)
    assert [row["key"] for row in pending if row["namespace"] == namespace] == []


async def test_retrieval_without_the_embedder_answers_from_the_other_channels_with_warnings(
    memories: MemoryService,
    retrieval: Retrieval,
    context_index: ContextIndex,
    embedder_down: OpenAICompatibleEmbedder,
    namespace: str,
) -> None:
    saved: tuple[tuple[str, str, list[tuple[str, float]]], ...] = (
        ("backups", "Nightly dumps of the graph database", []),
        ("deploy-guide", "Deploy with docker compose: neo4j, then qdrant", [("backups", 0.9)]),
        ("cat", "The cat sleeps on the warm windowsill", [("backups", 0.5)]),
        ("mouse", "A mouse hides behind the bookshelf", [("cat", 0.5)]),
    )
    for key, content, targets in saved:  # a chain: deploy-guide, backups, cat, mouse
        links = [{"key": target, "weight": weight} for target, weight in targets]
        await memories.save(namespace, save_input(key, content, links=links))
    await context_index.refresh_all()  # (a server on the same Neo4j may have done it already)
    down = Retrieval(
        retrieval.settings,
        Stores(
            memories.stores.graph,
            memories.stores.vectors,
            embedder_down,
            memories.stores.context_vectors,
        ),
    )
    query = "deploy-guide docker compose"
    hybrid = await down.retrieve(namespace, RetrieveInput(query=query, sort_by="relevance"))
    vector = await down.retrieve(namespace, RetrieveInput(query=query, search_mode="vector"))
    found = [(r["key"], sorted(r["scores"])) for r in hybrid["results"]]
    assert found[0] == ("deploy-guide", ["keyword", "keyword_context", "kv"])
    # deploy-guide's words are in cat's contextual text, two links away, and in backups': the
    # same text, an equal BM25 score whose order one full-suite run in four saw reversed. Both
    # are seeds that deploy-guide, the strongest, reaches (cat through backups).
    assert sorted(found[1:3]) == [
        ("backups", ["graph", "keyword_context"]),
        ("cat", ["graph", "keyword_context"]),
    ]
    assert found[3:] == [("mouse", ["graph"])]  # three links away: one hop from cat, a seed
    assert sorted(hybrid["warnings"]) == [
        f"vector channel unavailable: {EMBEDDER_DOWN}",
        f"vector_context channel unavailable: {EMBEDDER_DOWN}",
    ]
    assert (vector["success"], vector["results"]) == (True, [])
    assert vector["warnings"] == [f"vector channel unavailable: {EMBEDDER_DOWN}"]
    # The channels that failed do not count in the fused relevance: the same scores as with
    # their weights set to 0 (then they never run), not 3.75 / 5.25 of them.
    search = retrieval.settings.search
    fusion = search.fusion.model_copy(update={"vector": 0.0, "vector_context": 0.0})
    unweighted = retrieval.settings.model_copy(
        update={"search": search.model_copy(update={"fusion": fusion})}
    )
    without = Retrieval(
        unweighted,
        Stores(
            memories.stores.graph,
            memories.stores.vectors,
            embedder_down,
            memories.stores.context_vectors,
        ),
    )
    reference = await without.retrieve(namespace, RetrieveInput(query=query, sort_by="relevance"))
    assert reference["warnings"] == []
    by_key = {r["key"]: r["score"] for r in reference["results"]}
    assert {r["key"]: r["score"] for r in hybrid["results"]} == by_key


async def test_a_failing_onnx_run_is_a_backend_error_of_the_embedder(
    embedder: LocalMiniLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    def out_of_memory(*args: object, **kwargs: object) -> None:
        raise ONNX_FAILURES[0]("bad allocation")

    monkeypatch.setattr(ort.InferenceSession, "run", out_of_memory)
    with pytest.raises(BackendUnavailable) as caught:
        await embedder.embed(["any text"])
    assert caught.value.message == "embedder is unavailable: Fail: bad allocation"


async def test_a_batch_the_embedder_fails_is_stored_with_its_vectors_pending_for_reconcile(
    settings: Settings,
    graph: GraphStore,
    edge_store: EdgeVectorStore,
    embedder: LocalMiniLM,
    embedder_hangs: OpenAICompatibleEmbedder,
    namespace: str,
) -> None:
    # A batch embeds while its transaction writes and does not wait for the embedding to
    # commit (unlike a single save): what it stored keeps its vector pending.
    items = [
        {"key": "ledger", "content": "Invoices close on the 5th"},
        {"key": "tea", "content": "The office kettle descales on Fridays"},
    ]
    with pytest.raises(BackendUnavailable) as caught:
        await BatchSaver(settings, Stores(graph, edge_store, embedder_hangs)).save(namespace, items)
    pending = await graph.read("vector_pending", limit=100_000, vector_store=None)
    waiting = sorted(row["key"] for row in pending if row["namespace"] == namespace)
    await Reconciler(graph, edge_store, embedder).run()
    ids = [row["id"] for row in pending if row["namespace"] == namespace]
    assert caught.value.message == "embedder is unavailable: ReadTimeout"
    assert waiting == ["ledger", "tea"]
    assert await edge_store.existing_ids(ids) == set(ids)
