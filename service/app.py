"""Composition root: builds stores, embedder and services from settings and owns their lifetime.

`open_runtime` is used by the HTTP server, the stdio MCP server and the CLI alike.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from qdrant_client import AsyncQdrantClient

from service.auth import Authenticator
from service.config import Settings, unknown_env_variables
from service.embeddings import Embedder, build_embedder
from service.graph_store import CypherLibrary, GraphStore
from service.memory_service import MemoryService
from service.neo4j_local import LocalNeo4j
from service.retrieval import Retrieval
from service.retry import wait_until_ready
from service.vector_store import (
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
    authenticator: Authenticator
    started_at: float = field(default_factory=time.time)


def configure_logging(settings: Settings) -> None:
    """Logs go to stderr (stdout carries the stdio transport)."""
    logging.basicConfig(
        level=settings.log_level,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )


def neo4j_uri(settings: Settings) -> str:
    """The configured Neo4j, or the local one (started here when it is not running)."""
    if settings.neo4j.uri:
        return settings.neo4j.uri
    local = LocalNeo4j(settings.neo4j, settings.data_dir)
    return local.start().bolt_uri


def build_vector_store(settings: Settings, dimensions: int, model: str) -> VectorStore:
    collection = collection_name(model)
    if settings.qdrant.url:
        api_key = settings.qdrant.api_key.get_secret_value() or None
        client = AsyncQdrantClient(url=settings.qdrant.url, api_key=api_key, timeout=10)
        return ServerVectorStore(client, collection, dimensions)
    return EdgeVectorStore(settings.data_dir / "qdrant" / collection, dimensions)


@asynccontextmanager
async def open_runtime(settings: Settings) -> AsyncGenerator[Runtime]:
    """Start-up: Neo4j (waited for), migrations, embedder, Qdrant, reconcile; then clean-up."""
    for name in unknown_env_variables():
        log.warning("unknown setting %s is ignored: check its spelling (CONTRACT §7)", name)
    uri = await asyncio.to_thread(neo4j_uri, settings)
    graph = GraphStore(settings.neo4j, uri, CypherLibrary())
    try:
        await wait_until_ready(
            "neo4j",
            graph.check,
            settings.neo4j.startup_timeout_s,
            f"Is Neo4j running at {uri}? Check MNEMO_NEO4J__URI and its credentials.",
        )
        await graph.migrate()
        embedder = build_embedder(settings.embedding)
        vectors = build_vector_store(settings, embedder.dimensions, embedder.model)
        await wait_until_ready(
            "qdrant",
            vectors.open,
            settings.qdrant.startup_timeout_s,
            "Check MNEMO_QDRANT__URL, or leave it empty for the embedded engine.",
        )
        try:
            memories = MemoryService(settings, graph, vectors, embedder)
            report = await memories.reconcile()
            if report.vectors_written or report.vectors_deleted:
                log.info("start-up reconcile: %s", report)
            yield Runtime(
                settings=settings,
                graph=graph,
                vectors=vectors,
                embedder=embedder,
                memories=memories,
                retrieval=Retrieval(settings, graph, vectors, embedder, memories),
                authenticator=Authenticator(settings.auth),
            )
        finally:
            await vectors.close()
            await embedder.close()
    finally:
        await graph.close()
