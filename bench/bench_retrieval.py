"""Latency of search and retrieval on the embedded default (Qdrant Edge + local Neo4j) at
10k and 100k memories with 4 links each on average. In-process service calls, query
embedding included.

Targets at 100k: retrieve_context hybrid p50 ≤ 25 ms and p95 ≤ 50 ms; memory_search hybrid
p50 ≤ 15 ms; fulltext p50 ≤ 10 ms. Usage: python -m bench.bench_retrieval [SIZE ...]
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bench.common import local_neo4j, open_services, summary, write_results
from bench.corpus import synthetic_corpus, synthetic_queries
from service.core.bulk import BulkImporter
from service.core.search_inputs import FulltextInput, RetrieveInput, SearchInput
from service.stores.vector_store import EdgeVectorStore

NAMESPACE = "bench"
TARGETS = {"retrieve_hybrid": (25.0, 50.0), "search_hybrid": (15.0, None), "fulltext": (10.0, None)}


async def timed(call: Callable[[str], Awaitable[Any]], queries: list[str]) -> dict[str, float]:
    for query in queries[:5]:
        await call(query)
    samples: list[float] = []
    for query in queries:
        started = time.perf_counter()
        await call(query)
        samples.append((time.perf_counter() - started) * 1000)
    return summary(samples)


async def run(size: int, neo4j_uri: str, data: Path) -> dict[str, Any]:
    async with open_services(neo4j_uri, data) as (memories, retrieval):
        vectors, embedder = memories.vectors, memories.embedder
        assert isinstance(vectors, EdgeVectorStore)
        started = time.perf_counter()
        report = await BulkImporter(
            memories.settings, memories.graph, memories.vectors, memories.embedder
        ).run(
            NAMESPACE,
            synthetic_corpus(size),
            on_progress=lambda n: print(f"\rloaded {n}/{size}", end="", file=sys.stderr),
        )
        load_s = time.perf_counter() - started
        started = time.perf_counter()
        await vectors.build_index()
        index_s = time.perf_counter() - started
        queries = synthetic_queries(200)
        calls: dict[str, Callable[[str], Awaitable[Any]]] = {
            "retrieve_hybrid": lambda q: retrieval.retrieve(NAMESPACE, RetrieveInput(query=q)),
            "retrieve_vector": lambda q: retrieval.retrieve(
                NAMESPACE, RetrieveInput(query=q, search_mode="vector")
            ),
            "retrieve_keyword": lambda q: retrieval.retrieve(
                NAMESPACE, RetrieveInput(query=q, search_mode="keyword")
            ),
            "retrieve_graph": lambda q: retrieval.retrieve(
                NAMESPACE, RetrieveInput(query=q, search_mode="graph")
            ),
            "search_hybrid": lambda q: retrieval.search(
                NAMESPACE, SearchInput(query=q, mode="hybrid")
            ),
            "search_bm25": lambda q: retrieval.search(NAMESPACE, SearchInput(query=q, mode="bm25")),
            "search_vector": lambda q: retrieval.search(
                NAMESPACE, SearchInput(query=q, mode="vector")
            ),
            "fulltext": lambda q: retrieval.fulltext(
                NAMESPACE, FulltextInput(keywords=q.split()[:2])
            ),
            "embed_query": lambda q: embedder.embed([q]),
        }
        results: dict[str, Any] = {
            "memories": report["imported"],
            "links": report["linked"],
            "load_s": round(load_s, 1),
            "hnsw_build_s": round(index_s, 1),
        }
        for name, call in calls.items():
            stats = await timed(call, queries)
            target = TARGETS.get(name)
            if target:
                p50, p95 = target
                stats["target_p50_ms"] = p50
                stats["met"] = stats["p50_ms"] <= p50 and (p95 is None or stats["p95_ms"] <= p95)
                if p95 is not None:
                    stats["target_p95_ms"] = p95
            results[name] = stats
        return results


def main() -> None:
    sizes = [int(arg) for arg in sys.argv[1:]] or [10_000, 100_000]
    results: dict[str, Any] = {}
    for size in sizes:
        with local_neo4j() as (neo4j, _), tempfile.TemporaryDirectory() as folder:
            results[str(size)] = asyncio.run(run(size, neo4j.uri, Path(folder)))
        write_results("retrieval", results)


if __name__ == "__main__":
    main()
