"""The floor of a hybrid retrieve: its parts measured alone, in-process, on the stores the service
used (after it stopped): one query embedding, one vector query, one fulltext query and one Bolt
round trip (the graph version read). Beside it, not part of it, the graph expansion as
retrieve_context runs it: the walk of `max_hops` 2 from the best vector hits over the
namespace's link graph in process, checked against the version the round trip read (in
retrieve_context the lexical channels' statement brings it)."""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from service.config import load_settings
from service.core.read.channels import Channels
from service.core.read.fulltext import free_text_query
from service.core.stores import Stores
from service.filters import MemoryFilters
from service.stores.cypher_library import CypherLibrary
from service.stores.embeddings import build_embedder
from service.stores.graph_store import GraphStore
from service.stores.vector_store import EdgeVectorStore, VectorFilter, VectorHit, collection_name

WARM = 10
PARTS = ("embedding", "vector", "fulltext", "round_trip")
LOAD_WAIT_S = 600


async def _timed(samples: list[float], call: Callable[[], Awaitable[Any]]) -> Any:
    started = time.perf_counter()
    result = await call()
    samples.append((time.perf_counter() - started) * 1000)
    return result


def _empty() -> dict[str, list[float]]:
    return {part: [] for part in PARTS}


async def measure_floor(
    neo4j_uri: str, data: Path, queries: Sequence[str], namespace: str = "default"
) -> dict[str, Any]:
    """p50 of each part over `queries` (the first WARM only warm up) and their sum."""
    settings = load_settings(data_dir=data / "service")
    fetch, seeds = settings.search.fusion.fetch, settings.search.fusion.graph_seeds
    graph = GraphStore(settings.neo4j, neo4j_uri, CypherLibrary())
    embedder = build_embedder(settings.embedding)
    path = settings.data_dir / "qdrant" / collection_name(embedder.model)
    vectors = EdgeVectorStore(path, embedder.dimensions)
    await vectors.open()
    channels = Channels(settings.search, Stores(graph, vectors, embedder))
    samples = _empty()
    walks: list[float] = []
    try:
        await _link_graph_loaded(channels, namespace)
        for number, query in enumerate(queries):
            run = samples if number >= WARM else _empty()
            vector = (await _timed(run["embedding"], lambda q=query: embedder.embed([q])))[0]
            hits: list[VectorHit] = await _timed(
                run["vector"],
                lambda v=vector: vectors.search(
                    v, VectorFilter(namespace), fetch, settings.search.min_vector_score
                ),
            )
            lucene = free_text_query(query)
            await _timed(
                run["fulltext"],
                lambda q=lucene: channels.keyword(namespace, q, MemoryFilters(), fetch),
            )
            version = await _timed(
                run["round_trip"], lambda: graph.read("graph_version", namespace=namespace)
            )
            best = {hit.id: hit.score for hit in hits[:seeds]}
            await _timed(
                walks if number >= WARM else [],
                lambda b=best, v=version[0]: _walk(channels, namespace, b, v),
            )
    finally:
        await vectors.close()
        await embedder.close()
        await graph.close()
    parts = {part: round(statistics.median(values), 2) for part, values in samples.items()}
    return {
        "parts_p50_ms": parts,
        "floor_ms": round(sum(parts.values()), 2),
        "graph_expansion_p50_ms": round(statistics.median(walks), 2),
    }


async def _walk(
    channels: Channels, namespace: str, seeds: dict[str, float], version: dict[str, Any]
) -> None:
    """The walk as retrieve_context runs it: over the link graph in process when it is at the
    version that came with another read (the lexical channels' statement)."""
    graph = channels.link_graph_at(namespace, version)
    await channels.walk(namespace, seeds, 2, graph=graph)


async def _link_graph_loaded(channels: Channels, namespace: str) -> None:
    """Wait until the namespace's link graph is held in process (a new store loads it first)."""
    for _ in range(LOAD_WAIT_S * 20):
        if await channels.link_graph(namespace) is not None:
            return
        await asyncio.sleep(0.05)
