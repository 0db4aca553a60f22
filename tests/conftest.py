"""Test session: a real Neo4j (started here on free ports, or MNEMO_TEST_NEO4J_URI), the real
embedder, Qdrant Edge and a real Qdrant server process; every test gets a fresh namespace."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator, Sequence
from pathlib import Path
from typing import cast

import pytest
import pytest_asyncio
from pydantic import SecretStr
from qdrant_client import AsyncQdrantClient

from devtools import seeding
from service.config import Neo4jSettings, Settings, load_settings
from service.core.memories import MemoryService
from service.core.models import SaveInput
from service.core.read.retrieval import Retrieval
from service.core.stores import Stores
from service.core.upkeep.context_index import ContextIndex
from service.core.write.batch import BatchSaver
from service.stores.cypher_library import CypherLibrary
from service.stores.embeddings import LocalMiniLM
from service.stores.graph_store import GraphStore
from service.stores.neo4j_local import LocalNeo4j, free_port
from service.stores.vector_store import EdgeVectorStore, ServerVectorStore
from tests.qdrant_process import QdrantPeer


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mnemo-data")


@pytest.fixture(scope="session")
def neo4j_settings(data_dir: Path) -> Iterator[Neo4jSettings]:
    """A real Neo4j for the whole session: an external one, or a local one on free ports."""
    external = os.environ.get("MNEMO_TEST_NEO4J_URI")
    if external:
        yield Neo4jSettings(
            uri=external,
            user=os.environ.get("MNEMO_TEST_NEO4J_USER", "neo4j"),
            password=SecretStr(os.environ.get("MNEMO_TEST_NEO4J_PASSWORD", "")),
        )
        return
    settings = Neo4jSettings(bolt_port=free_port(), http_port=free_port(), heap="1g")
    local = LocalNeo4j(settings, data_dir)
    status = local.start(timeout_s=240)
    try:
        yield settings.model_copy(update={"uri": status.bolt_uri})
    finally:
        local.stop()


@pytest.fixture(scope="session")
def settings(data_dir: Path, neo4j_settings: Neo4jSettings) -> Settings:
    return load_settings(data_dir=data_dir, neo4j=neo4j_settings)


@pytest_asyncio.fixture(scope="session")
async def graph(settings: Settings) -> AsyncIterator[GraphStore]:
    store = GraphStore(settings.neo4j, settings.neo4j.uri, CypherLibrary())
    await store.migrate()
    yield store
    await store.close()


@pytest.fixture(scope="session")
def embedder() -> LocalMiniLM:
    return LocalMiniLM()


@pytest_asyncio.fixture(scope="session")
async def edge_store(data_dir: Path, embedder: LocalMiniLM) -> AsyncIterator[EdgeVectorStore]:
    store = EdgeVectorStore(data_dir / "edge-session", embedder.dimensions)
    await store.open()
    yield store
    await store.close()


@pytest_asyncio.fixture(scope="session")
async def context_store(data_dir: Path, embedder: LocalMiniLM) -> AsyncIterator[EdgeVectorStore]:
    """The graph-contextual vectors (a second Qdrant Edge shard)."""
    store = EdgeVectorStore(data_dir / "edge-context", embedder.dimensions)
    await store.open()
    yield store
    await store.close()


@pytest_asyncio.fixture(scope="session")
async def context_index(
    settings: Settings,
    graph: GraphStore,
    context_store: EdgeVectorStore,
    embedder: LocalMiniLM,
    edge_store: EdgeVectorStore,
) -> ContextIndex:
    return ContextIndex.configured(settings.search, graph, context_store, embedder, edge_store)


@pytest_asyncio.fixture(scope="session")
async def memories(
    settings: Settings,
    graph: GraphStore,
    edge_store: EdgeVectorStore,
    embedder: LocalMiniLM,
    context_store: EdgeVectorStore,
) -> AsyncIterator[MemoryService]:
    service = MemoryService(settings, Stores(graph, edge_store, embedder, context_store))
    yield service
    await service.close()


@pytest.fixture
def namespace() -> str:
    """A fresh namespace per test: tests never see each other's memories."""
    return f"t-{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="session")
def qdrant_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[QdrantPeer]:
    """A real Qdrant server for the whole session (free ports, own storage, an API key)."""
    peer = QdrantPeer(tmp_path_factory.mktemp("qdrant-server"), api_key="test-qdrant-key")
    peer.start()
    try:
        yield peer
    finally:
        peer.stop()


@contextlib.asynccontextmanager
async def fresh_collection(
    peer: QdrantPeer, dimensions: int = 384
) -> AsyncGenerator[ServerVectorStore]:
    """The server engine on a collection of its own, dropped afterwards."""
    collection = f"memories__test_{uuid.uuid4().hex[:12]}"
    client = AsyncQdrantClient(url=peer.url, api_key=peer.api_key or None)
    store = ServerVectorStore(client, collection, dimensions)
    await store.open()
    try:
        yield store
    finally:
        await client.delete_collection(collection)
        await store.close()


@pytest_asyncio.fixture
async def server_store(qdrant_server: QdrantPeer) -> AsyncIterator[ServerVectorStore]:
    """The server engine on a fresh collection of the session's Qdrant server."""
    async with fresh_collection(qdrant_server) as store:
        yield store


@pytest_asyncio.fixture(scope="session")
async def retrieval_with(
    graph: GraphStore,
    edge_store: EdgeVectorStore,
    embedder: LocalMiniLM,
    memories: MemoryService,
    context_store: EdgeVectorStore,
) -> Callable[[Settings], Retrieval]:
    """Retrieval over the session's stores with settings of a test's own."""
    return lambda settings: Retrieval(settings, Stores(graph, edge_store, embedder, context_store))


@pytest_asyncio.fixture(scope="session")
async def retrieval(
    settings: Settings, retrieval_with: Callable[[Settings], Retrieval]
) -> Retrieval:
    return retrieval_with(settings)


@pytest_asyncio.fixture(scope="session")
async def batches(
    settings: Settings, graph: GraphStore, edge_store: EdgeVectorStore, embedder: LocalMiniLM
) -> BatchSaver:
    """The batch path (POST /v1/memories/batch, and imports) over the session's stores."""
    return BatchSaver(settings, Stores(graph, edge_store, embedder))


@pytest_asyncio.fixture(scope="session")
async def server_memories(
    settings: Settings, graph: GraphStore, qdrant_server: QdrantPeer, embedder: LocalMiniLM
) -> AsyncIterator[MemoryService]:
    """A MemoryService whose vectors (own and contextual) live in the session's Qdrant server."""
    async with (
        fresh_collection(qdrant_server, embedder.dimensions) as vectors,
        fresh_collection(qdrant_server, embedder.dimensions) as context_vectors,
    ):
        service = MemoryService(settings, Stores(graph, vectors, embedder, context_vectors))
        yield service
        await service.close()


@pytest.fixture(params=["edge", "server"])
def engine_memories(request: pytest.FixtureRequest, memories: MemoryService) -> MemoryService:
    """The session's MemoryService over each vector engine in turn: Qdrant Edge, then a server."""
    if request.param == "edge":
        return memories
    return cast(MemoryService, request.getfixturevalue("server_memories"))


def retrieval_over(memories: MemoryService, settings: Settings | None = None) -> Retrieval:
    """Retrieval over the stores of `memories` (with `settings` of a test's own)."""
    return Retrieval(settings or memories.settings, memories.stores)


async def save_in_batches(
    memories: MemoryService, namespace: str, items: Sequence[SaveInput]
) -> None:
    """`items` saved through the batch path over the stores of `memories` (devtools.seeding)."""
    saver = BatchSaver(memories.settings, memories.stores)
    await seeding.save_in_batches(saver, namespace, items)
