"""Shared benchmark plumbing: timing, percentiles, a real Neo4j + service, JSON results."""

from __future__ import annotations

import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncGenerator, Callable, Generator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx
from neo4j import AsyncDriver, AsyncGraphDatabase

from bench.perf_corpus import corpus
from devtools.seeding import save_in_batches
from service.config import Neo4jSettings, load_settings
from service.core.memories import MemoryService
from service.core.models import SaveInput
from service.core.read.channels import Channels
from service.core.read.query_cache import QueryVectorCache
from service.core.read.retrieval import Retrieval
from service.core.stores import Stores
from service.core.upkeep.context_index import ContextIndex
from service.core.write.batch import BatchSaver
from service.stores.cypher_library import CypherLibrary
from service.stores.embeddings import LocalMiniLM
from service.stores.graph_store import GraphStore
from service.stores.neo4j_local import LocalNeo4j, free_port
from service.stores.vector_store import EdgeVectorStore

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"


def timed_ms(function: Callable[[], Any], repeat: int) -> list[float]:
    samples: list[float] = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)

    def pct(p: float) -> float:
        return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]

    return {
        "n": len(ordered),
        "p50_ms": round(pct(0.50), 3),
        "p95_ms": round(pct(0.95), 3),
        "p99_ms": round(pct(0.99), 3),
        "mean_ms": round(statistics.fmean(ordered), 3),
        "max_ms": round(ordered[-1], 3),
    }


# The CPU flags that decide the model's speed: the float and int8 matrix products of
# onnxruntime (an AVX2-only VM embedded 2.6-2.9 times slower than the earlier one, the int8 variant
# no faster than the shipped model there: docs/performance.md).
VECTOR_FLAGS = ("avx2", "fma", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8")


def machine_facts() -> dict[str, Any]:
    """What a result depends on: cores, Python, and the CPU's model and vector instructions
    (from /proc/cpuinfo; empty where it is not Linux)."""
    return {"cpus": os.cpu_count(), "python": platform.python_version(), **cpu_facts()}


def cpu_facts(cpuinfo: Path = Path("/proc/cpuinfo")) -> dict[str, Any]:
    """The first CPU's `model name` and which of VECTOR_FLAGS it has."""
    if not cpuinfo.is_file():
        return {}
    fields: dict[str, str] = {}
    for line in cpuinfo.read_text().splitlines():
        if not line.strip():
            break
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    flags = set(fields.get("flags", "").split())
    vector_flags = [flag for flag in VECTOR_FLAGS if flag in flags]
    return {"cpu": fields.get("model name", ""), "cpu_flags": vector_flags}


def result_header(name: str) -> dict[str, Any]:
    """What every result file starts with: the benchmark's name, when it ran, and where."""
    return {
        "benchmark": name,
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": machine_facts(),
    }


def write_results(name: str, results: dict[str, Any]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    payload = {**result_header(name), "results": results}
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(payload, indent=2) + "\n")
    print(json.dumps(payload, indent=2))
    return path


async def wait_context(neo4j_uri: str, timeout_s: float, vector_store: str | None = None) -> float:
    """Seconds until the background context indexers have nothing pending (those writing to
    `vector_store`, when given: a Neo4j shared with other services holds their backlogs too)."""
    return (await context_passes(neo4j_uri, timeout_s, vector_store))[1]


async def context_passes(
    neo4j_uri: str, timeout_s: float, vector_store: str | None = None
) -> tuple[float, float]:
    """Seconds until the context indexers' first pass is done (every context text current, its
    vector at least the mean of stored ones: searchable), and until nothing is left at all."""
    settings = load_settings()
    graph = GraphStore(settings.neo4j, neo4j_uri, CypherLibrary())
    started = time.perf_counter()
    first_pass_s: float | None = None
    try:
        while True:
            row = (await graph.read("context_backlog", namespace=None, vector_store=vector_store))[
                0
            ]
            waited = time.perf_counter() - started
            if first_pass_s is None and not row["pending"]:
                first_pass_s = waited
            if not row["backlog"]:
                return first_pass_s or waited, waited
            if waited > timeout_s:
                raise RuntimeError("the context backlog did not drain in time")
            await asyncio.sleep(0.5)
    finally:
        await graph.close()


async def context_backlog(neo4j_uri: str, vector_store: str | None = None) -> dict[str, Any]:
    """The context backlog now: pending, approximate, and the oldest wait in ms."""
    settings = load_settings()
    graph = GraphStore(settings.neo4j, neo4j_uri, CypherLibrary())
    try:
        row = (await graph.read("context_backlog", namespace=None, vector_store=vector_store))[0]
    finally:
        await graph.close()
    return {name: row[name] for name in ("pending", "approximate", "oldest_wait_ms")}


@contextmanager
def local_neo4j() -> Generator[tuple[Neo4jSettings, Path]]:
    """A real Neo4j on free ports in a temporary folder, stopped afterwards."""
    with tempfile.TemporaryDirectory(prefix="mnemo-bench-") as folder:
        data = Path(folder)
        settings = Neo4jSettings(bolt_port=free_port(), http_port=free_port(), heap="2g")
        local = LocalNeo4j(settings, data)
        status = local.start(timeout_s=240)
        try:
            yield settings.model_copy(update={"uri": status.bolt_uri}), data
        finally:
            local.stop()


def open_driver(neo4j: Neo4jSettings) -> AsyncDriver:
    """A plain driver on `neo4j` (its factory is partially typed: typed here)."""
    password = neo4j.password.get_secret_value()
    graph_database: Any = AsyncGraphDatabase
    driver: AsyncDriver = graph_database.driver(
        neo4j.uri,
        auth=(neo4j.user, password) if password else None,
        notifications_min_severity="OFF",
    )
    return driver


def db_hits(plan: dict[str, Any]) -> int:
    """The database hits of a profiled plan and all its children."""
    return int(plan.get("args", {}).get("DbHits", 0)) + sum(
        db_hits(child) for child in plan.get("children", [])
    )


def neo4j_pid(folder: Path) -> int:
    """The pid of the Neo4j `local_neo4j` started in `folder`."""
    return int((folder / "neo4j" / "neo4j.pid").read_text().strip())


def service_env(neo4j: Neo4jSettings, data: Path, port: int | None = None) -> dict[str, str]:
    """The environment of a `mnemograph` command on that Neo4j with its data under `data`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_")}
    env.update(
        MNEMO_NEO4J__URI=neo4j.uri,
        MNEMO_DATA_DIR=str(data / "service"),
        MNEMO_LOG_LEVEL="WARNING",
        MNEMO_LIMITS__RATE_PER_S="0",  # measure the service, not the per-key rate limit
    )
    if port is not None:
        env["MNEMO_HTTP__PORT"] = str(port)
    return env


@contextmanager
def service_process(
    neo4j: Neo4jSettings, data: Path, timeout_s: float = 120
) -> Generator[tuple[str, subprocess.Popen[bytes]]]:
    """`mnemograph serve` against that Neo4j, ready; yields its base URL and process."""
    port = free_port()
    command = [sys.executable, "-m", "service.cli", "serve"]
    process = subprocess.Popen(command, cwd=REPO, env=service_env(neo4j, data, port))
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout_s
        while not _ready(url):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"mnemograph serve did not become ready at {url}")
            time.sleep(0.3)
        yield url, process
    finally:
        process.terminate()
        process.wait(timeout=60)


def _ready(url: str) -> bool:
    try:
        return httpx.get(f"{url}/readyz", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


@contextmanager
def running_service(neo4j: Neo4jSettings, data: Path) -> Generator[str]:
    """`mnemograph serve` against that Neo4j; yields its base URL."""
    with service_process(neo4j, data) as (url, _):
        yield url


@asynccontextmanager
async def open_services(
    neo4j_uri: str, data: Path
) -> AsyncGenerator[tuple[MemoryService, Retrieval]]:
    """The memory and retrieval services on that Neo4j and a Qdrant Edge under `data`."""
    settings = load_settings(data_dir=data)
    graph = GraphStore(settings.neo4j, neo4j_uri, CypherLibrary())
    await graph.migrate()
    embedder = LocalMiniLM()
    vectors = EdgeVectorStore(data / "edge", embedder.dimensions)
    await vectors.open()
    memories = MemoryService(settings, Stores(graph, vectors, embedder))
    try:
        yield memories, Retrieval(settings, Stores(graph, vectors, embedder))
    finally:
        await memories.close()
        await vectors.close()
        await graph.close()


@asynccontextmanager
async def open_context_index(memories: MemoryService, data: Path) -> AsyncGenerator[ContextIndex]:
    """The context indexer over the stores of `memories`, its vectors in a Qdrant Edge under
    `data`."""
    stores = memories.stores
    context_vectors = EdgeVectorStore(data / "edge-context", stores.embedder.dimensions)
    await context_vectors.open()
    try:
        yield ContextIndex.configured(
            memories.settings.search, stores.graph, context_vectors, stores.embedder,
            stores.vectors,
        )  # fmt: skip
    finally:
        await context_vectors.close()


async def perf_store(
    memories: MemoryService, index: ContextIndex, namespace: str, size: int
) -> Stores:
    """The perf corpus of `size` memories saved into `namespace` through the batch path, every
    context's first pass done (no model); the stores with the context vectors."""
    stores = memories.stores
    items = [SaveInput.model_validate(item) for item in corpus(size)]
    await save_in_batches(BatchSaver(memories.settings, stores), namespace, items)
    while await index.approximate():
        pass
    return Stores(stores.graph, stores.vectors, stores.embedder, index.vectors)


async def embedded_channels(memories: MemoryService, stores: Stores, asked: list[str]) -> Channels:
    """Retrieval channels whose query vectors for `asked` are embedded beforehand."""
    vectors = QueryVectorCache(stores.embedder, len(asked))
    for query in asked:
        await vectors.get(query)
    return Channels(memories.settings.search, stores, query_vectors=vectors)
