"""Composition root: builds stores, embedder and use cases from settings, owns their lifetime
and the `RuntimeRef` the adapters read them through (HTTP server, stdio MCP server, CLI)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager, nullcontext
from dataclasses import dataclass, field

from service.auth import Authenticator
from service.config import Settings, unknown_env_variables
from service.core.memories import MemoryService
from service.core.read.retrieval import Retrieval
from service.core.stores import Stores
from service.core.upkeep.context_index import ContextIndex, background
from service.core.upkeep.reconcile import Reconciler
from service.core.write.batch import BatchSaver
from service.data_folder import lock
from service.errors import InternalError
from service.retry import wait_until_ready
from service.stores.cypher_library import CypherLibrary
from service.stores.embeddings import Embedder, SharedEmbedder, build_embedder
from service.stores.graph_store import GraphStore
from service.stores.neo4j_local import LocalNeo4j
from service.stores.vector_health import SelfHealingVectorStore
from service.stores.vector_store import (
    CollectionLayout,
    EdgeVectorStore,
    ServerVectorStore,
    VectorStore,
    collection_name,
)

log = logging.getLogger(__name__)


@dataclass
class Runtime:
    """Everything a request needs, built once per process."""

    settings: Settings
    graph: GraphStore
    vectors: VectorStore
    embedder: Embedder
    memories: MemoryService
    retrieval: Retrieval
    reconciler: Reconciler
    batch: BatchSaver
    context: ContextIndex
    authenticator: Authenticator
    started_at: float = field(default_factory=time.time)


class RuntimeRef:
    """The runtime, set once the process has started its stores."""

    def __init__(self) -> None:
        self._runtime: Runtime | None = None

    def set(self, runtime: Runtime | None) -> None:
        self._runtime = runtime

    def get(self) -> Runtime:
        if self._runtime is None:
            raise InternalError()
        return self._runtime


def neo4j_uri(settings: Settings) -> str:
    """The configured Neo4j, or the local one (started here when it is not running)."""
    if settings.neo4j.uri:
        return settings.neo4j.uri
    local = LocalNeo4j(settings.neo4j, settings.data_dir)
    return local.start().bolt_uri


def build_vector_store(
    settings: Settings, dimensions: int, model: str, suffix: str = ""
) -> VectorStore:
    """The memories' vectors (or, with `suffix="__context"`, their graph-contextual vectors)."""
    collection = collection_name(model) + suffix
    if settings.qdrant.url:
        api_key = settings.qdrant.api_key.get_secret_value() or None
        layout = CollectionLayout(
            settings.qdrant.shards,
            settings.qdrant.replication_factor,
            settings.qdrant.write_consistency_factor,
        )
        return ServerVectorStore.at(settings.qdrant.url, api_key, collection, dimensions, layout)
    return SelfHealingVectorStore(
        EdgeVectorStore(settings.data_dir / "qdrant" / collection, dimensions)
    )


@asynccontextmanager
async def open_runtime(settings: Settings, index_context: bool = True) -> AsyncGenerator[Runtime]:
    """Start-up: the data folder's lock (when it holds a store), Neo4j (waited for), migrations,
    embedder, Qdrant, reconcile, and (with `index_context`) the background context indexer;
    then clean-up."""
    for name in unknown_env_variables():
        log.warning("unknown setting %s is ignored: check its spelling (docs/contract.md §7)", name)
    # Entry points take the lock first under their own name; here it nests, or guards other callers.
    owner = lock.owning(settings.data_dir, "mnemograph") if settings.uses_local_stores else None
    with owner or nullcontext():
        async with _open_runtime(settings, index_context) as runtime:
            yield runtime


@asynccontextmanager
async def _open_runtime(settings: Settings, index_context: bool) -> AsyncGenerator[Runtime]:
    uri = await asyncio.to_thread(neo4j_uri, settings)
    graph = GraphStore(settings.neo4j, uri, CypherLibrary(timeout_s=settings.neo4j.query_timeout_s))
    try:
        await wait_until_ready(
            "neo4j",
            graph.check,
            settings.neo4j.startup_timeout_s,
            f"Is Neo4j running at {uri}? Check MNEMO_NEO4J__URI and its credentials.",
        )
        await graph.migrate()
        embedder = SharedEmbedder(build_embedder(settings.embedding))
        vectors = build_vector_store(settings, embedder.dimensions, embedder.model)
        context_vectors = build_vector_store(
            settings, embedder.dimensions, embedder.model, "__context"
        )
        for store in (vectors, context_vectors):
            await wait_until_ready(
                "qdrant",
                store.open,
                settings.qdrant.startup_timeout_s,
                "Check MNEMO_QDRANT__URL, or leave it empty for the embedded engine.",
            )
        try:
            context = ContextIndex.configured(
                settings.search, graph, context_vectors, embedder, vectors
            )
            stores = Stores(graph, vectors, embedder, context_vectors)
            memories = MemoryService(settings, stores)
            reconciler = Reconciler(graph, vectors, embedder, context)
            await _reconcile_at_start(reconciler, embedder.model)
            try:
                async with background(context) if index_context else nullcontext():
                    yield Runtime(
                        settings=settings,
                        graph=graph,
                        vectors=vectors,
                        embedder=embedder,
                        memories=memories,
                        retrieval=Retrieval(settings, stores),
                        reconciler=reconciler,
                        batch=BatchSaver(settings, stores, memories.committed),
                        context=context,
                        authenticator=Authenticator(settings.auth, settings.mcp.api_key),
                    )
            finally:
                await memories.close()
        finally:
            await context_vectors.close()
            await vectors.close()
            await embedder.close()
    finally:
        await graph.close()


async def _reconcile_at_start(reconciler: Reconciler, model: str) -> None:
    """Finish what a stop left pending, and say when this model's collection is still empty
    while Neo4j holds memories whose vectors another collection holds."""
    report = await reconciler.run(drain_context=False)
    if report.vectors_written or report.vectors_deleted:
        log.info("start-up reconcile: %s", report)
    if elsewhere := await reconciler.vectors_elsewhere():
        log.warning(
            "the vector collection of %s is empty, but Neo4j holds memories whose vectors "
            "other vector storages hold (another embedding model, or another service's store): "
            "%s; vector search finds them once `mnemograph reconcile --adopt STORAGE` has "
            "embedded them here, or once they are re-imported or saved again "
            "(docs/operations.md, Upgrades)",
            model,
            ", ".join(
                f"{storage} ({count} {'memory' if count == 1 else 'memories'})"
                for storage, count in elsewhere.items()
            ),
        )
