"""A process killed between the Neo4j and the Qdrant write loses nothing acknowledged and
leaves no orphan once `reconcile` has run."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from pathlib import Path

from service.core.memories import MemoryService
from service.core.models import SaveInput, now_utc
from service.core.stores import Stores
from service.core.upkeep.reconcile import Reconciler, ReconcileReport
from service.stores.embeddings import LocalMiniLM
from service.stores.graph_store import GraphStore
from service.stores.vector_store import EdgeVectorStore

REPO = Path(__file__).resolve().parents[2]


def crash(uri: str, edge_dir: Path, namespace: str, mode: str) -> str:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.integration.crash_worker",
            uri,
            str(edge_dir),
            namespace,
            mode,
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[0])["acknowledged"]


async def reconcile(service: MemoryService, full: bool = False) -> ReconcileReport:
    return await Reconciler(
        service.stores.graph, service.stores.vectors, service.stores.embedder
    ).run(full=full)


@asynccontextmanager
async def reopened(
    memories: MemoryService, embedder: LocalMiniLM, edge_dir: Path
) -> AsyncGenerator[tuple[MemoryService, EdgeVectorStore]]:
    """The crashed process's Qdrant Edge folder, opened again, with a service on it."""
    vectors = EdgeVectorStore(edge_dir, embedder.dimensions)
    await vectors.open()
    try:
        yield (
            MemoryService(memories.settings, Stores(memories.stores.graph, vectors, embedder)),
            vectors,
        )
    finally:
        await vectors.close()


async def test_crash_inside_a_save_is_finished_by_reconcile(
    memories: MemoryService,
    graph: GraphStore,
    embedder: LocalMiniLM,
    namespace: str,
    tmp_path: Path,
) -> None:
    await reconcile(memories)  # what earlier tests left pending (reconcile is global)
    acknowledged = crash(graph.uri, tmp_path / "edge", namespace, "save")
    async with reopened(memories, embedder, tmp_path / "edge") as (service, vectors):
        in_flight = (await service.reader.resolve(namespace, keys=["in-flight"]))["in-flight"]
        assert await vectors.existing_ids([acknowledged, in_flight]) == {acknowledged}
        assert await reconcile(service) == ReconcileReport(1, 0, 0, 0)
        assert await vectors.existing_ids([acknowledged, in_flight]) == {acknowledged, in_flight}
        got = await service.get(namespace, keys=["acknowledged", "in-flight"])
        assert [m["content"] for m in got["memories"]] == ["kept safe", "written to neo4j"]
        assert await reconcile(service) == ReconcileReport(0, 0, 0, 0)


async def test_crash_inside_a_delete_leaves_no_orphan_vector_after_reconcile(
    memories: MemoryService,
    graph: GraphStore,
    embedder: LocalMiniLM,
    namespace: str,
    tmp_path: Path,
) -> None:
    await reconcile(memories)  # what earlier tests left pending (reconcile is global)
    deleted = crash(graph.uri, tmp_path / "edge", namespace, "delete")
    async with reopened(memories, embedder, tmp_path / "edge") as (service, vectors):
        assert await service.reader.resolve(namespace, keys=["acknowledged"]) == {}
        assert await vectors.existing_ids([deleted]) == {deleted}
        assert await reconcile(service) == ReconcileReport(0, 1, 0, 0)
        assert await vectors.existing_ids([deleted]) == set()


async def test_full_reconcile_repairs_drift_in_both_directions(
    memories: MemoryService, edge_store: EdgeVectorStore, namespace: str
) -> None:
    kept = await memories.save(namespace, SaveInput(key="kept", content="vector lost"))
    orphan = await memories.save(namespace, SaveInput(key="orphan", content="node lost"))
    kept_id, orphan_id = kept["memory"]["id"], orphan["memory"]["id"]
    await edge_store.delete([kept_id])
    await memories.stores.graph.write(
        "memory_delete", ids=[orphan_id], namespace=namespace, now=now_utc(), seen=None
    )
    await memories.stores.graph.write("tombstones_clear", ids=[orphan_id])
    written: list[int] = []
    marked: list[int] = []
    report = await Reconciler(
        memories.stores.graph, memories.stores.vectors, memories.stores.embedder
    ).run(full=True, written_so_far=written.append, marked_missing=marked.append)
    assert report.orphans_deleted >= 1
    assert report.missing_vectors >= 1
    assert (marked, sum(written)) == ([report.missing_vectors], report.vectors_written)
    assert await edge_store.existing_ids([kept_id, orphan_id]) == {kept_id}
