"""A 3-peer Qdrant cluster under the server engine and a real `mnemograph serve`: a peer they do
not talk to is killed with SIGKILL under concurrent writes and reads, then restarted."""

from __future__ import annotations

import asyncio
import statistics
import time
import uuid
from collections.abc import AsyncIterator, Coroutine, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
import pytest_asyncio
from qdrant_client import AsyncQdrantClient

from service.config import Settings
from service.errors import BackendUnavailable
from service.stores.graph_store import GraphStore
from service.stores.vector_store import (
    CollectionLayout,
    ServerVectorStore,
    VectorFilter,
    VectorPoint,
    collection_name,
)
from tests.e2e.conftest import serving, wait_context_drained
from tests.qdrant_process import QdrantPeer, start_cluster

API_KEY = "cluster-key"
CLIENTS = 4
# Seconds of load with every peer up, with the killed peer down, and after its restart.
BEFORE_S, DOWN_S, AFTER_S = 5.0, 12.0, 4.0
RECOVERY_LIMIT_S = 60.0
# Layout of the service's collections: 3 shards of 2 replicas over 3 peers. A write is
# acknowledged once one replica applied it (the vectors derive from Neo4j, and reconcile
# rewrites a lost one); requiring both would refuse every write while a peer is down.
LAYOUT = {
    "MNEMO_QDRANT__SHARDS": "3",
    "MNEMO_QDRANT__REPLICATION_FACTOR": "2",
    "MNEMO_QDRANT__WRITE_CONSISTENCY_FACTOR": "1",
}


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[list[QdrantPeer]]:
    peers = start_cluster(tmp_path / "qdrant", peers=3, api_key=API_KEY)
    try:
        yield peers
    finally:
        for peer in peers:
            peer.stop()


@pytest_asyncio.fixture
async def qdrant_http() -> AsyncIterator[httpx.AsyncClient]:
    """Qdrant's REST API, with the cluster's key."""
    async with httpx.AsyncClient(headers={"api-key": API_KEY}, timeout=30) as http:
        yield http


@dataclass
class Load:
    """What the clients sent and got, by phase: warm-up (until every client has had its first
    save and retrieve answered), before, down (the peer killed), after (its restart and
    catch-up, then AFTER_S more)."""

    phase: str = "warm-up"
    warm: asyncio.Event = field(default_factory=asyncio.Event)
    done: bool = False
    acked: dict[str, str] = field(default_factory=dict[str, str])  # key → content
    failures: list[str] = field(default_factory=list[str])
    warnings: list[str] = field(default_factory=list[str])
    latencies: dict[tuple[str, str], list[float]] = field(
        default_factory=dict[tuple[str, str], list[float]]
    )

    def figures(self) -> dict[str, dict[str, tuple[int, float]]]:
        """Phase → call → (answers, p50 ms)."""
        figures: dict[str, dict[str, tuple[int, float]]] = {}
        for (phase, call), seconds in sorted(self.latencies.items()):
            p50 = round(statistics.median(seconds) * 1000, 1)
            figures.setdefault(phase, {})[call] = (len(seconds), p50)
        return figures

    async def request(
        self, http: httpx.AsyncClient, call: str, method: str, path: str, **kwargs: Any
    ) -> dict[str, Any] | None:
        """The answer's body when it is a success; a failure is noted, never raised."""
        phase, started = self.phase, time.monotonic()
        try:
            response = await http.request(method, path, **kwargs)
        except httpx.TransportError as exc:
            self.failures.append(f"{phase} {call}: {exc!r}")
            return None
        self.latencies.setdefault((phase, call), []).append(time.monotonic() - started)
        if len(self.latencies.get(("warm-up", "retrieve"), [])) >= CLIENTS:
            self.warm.set()  # each client had its first save and retrieve answered
        if response.status_code not in (200, 201):
            self.failures.append(f"{phase} {call} {response.status_code} {response.text[:300]}")
            return None
        return response.json()


async def client(http: httpx.AsyncClient, ns: str, worker: int, load: Load) -> None:
    """Save a memory with a key and text of its own, then read it back by meaning: a hybrid
    retrieve_context and a hybrid memory_search in turn, until the load is done."""
    step = 0
    while not load.done:
        key = f"w{worker}-{step}"
        content = f"cluster note {worker}-{step}: {uuid.uuid4().hex}"
        body = {"key": key, "content": content}
        if await load.request(
            http, "save", "POST", "/v1/memories", params={"namespace": ns}, json=body
        ):
            load.acked[key] = content
        if step % 2 == 0:
            query = {"query": content, "namespace": ns}
            got = await load.request(http, "retrieve", "POST", "/v1/retrieve", json=query)
            load.warnings += got["warnings"] if got else []
        else:
            params = {"query": content, "namespace": ns}
            await load.request(http, "search", "GET", "/v1/search", params=params)
        step += 1


async def replica_states(
    qdrant: httpx.AsyncClient, peer: QdrantPeer, collection: str
) -> dict[tuple[int, int], str]:
    """(shard, peer id) → state of every replica of the collection, as `peer` sees them."""
    response = await qdrant.get(f"{peer.url}/collections/{collection}/cluster")
    view = response.json()["result"]
    states = {(s["shard_id"], view["peer_id"]): s["state"] for s in view["local_shards"]}
    states |= {(s["shard_id"], s["peer_id"]): s["state"] for s in view["remote_shards"]}
    return states


async def local_counts(
    qdrant: httpx.AsyncClient, peers: list[QdrantPeer], collection: str
) -> dict[int, list[int]]:
    """Shard → the points of each of its replicas, read on the peer that holds it."""
    counts: dict[int, list[int]] = {}
    for peer in peers:
        response = await qdrant.get(f"{peer.url}/collections/{collection}/cluster")
        for shard in response.json()["result"]["local_shards"]:
            counts.setdefault(shard["shard_id"], []).append(shard["points_count"])
    return counts


async def until_active(
    qdrant: httpx.AsyncClient, views: list[QdrantPeer], collections: list[str], since: float
) -> float:
    """Seconds from `since` until every replica of the collections is Active in every view."""
    while time.monotonic() - since < RECOVERY_LIMIT_S:
        states = [await replica_states(qdrant, p, c) for p in views for c in collections]
        if all(state == "Active" for view in states for state in view.values()):
            return time.monotonic() - since
        await asyncio.sleep(0.1)
    return float("inf")


@dataclass
class Outage:
    """What the kill did to the cluster, as the service's peer saw it."""

    peer_id: int = 0
    killed_states: list[str] = field(default_factory=list[str])  # its replicas, while down
    restart_s: float = 0.0  # the process started until it answered /readyz
    recovery_s: float = 0.0  # the process started until every replica was Active again


async def kill_and_restart(
    peers: list[QdrantPeer], qdrant: httpx.AsyncClient, collections: list[str], load: Load
) -> Outage:
    """Under the load: kill -9 the last peer, keep it down, restart it and time its catch-up."""
    outage = Outage()
    victim = peers[-1]
    outage.peer_id = (await qdrant.get(f"{victim.url}/cluster")).json()["result"]["peer_id"]
    await load.warm.wait()
    load.phase = "before"
    await asyncio.sleep(BEFORE_S)
    await asyncio.to_thread(victim.kill)
    load.phase = "down"
    await asyncio.sleep(DOWN_S)
    states = await replica_states(qdrant, peers[0], collections[0])
    outage.killed_states = [s for (_, p), s in sorted(states.items()) if p == outage.peer_id]
    load.phase = "after"
    started = time.monotonic()
    await asyncio.to_thread(victim.start, 60)
    outage.restart_s = time.monotonic() - started
    outage.recovery_s = await until_active(qdrant, [peers[0], victim], collections, started)
    await asyncio.sleep(AFTER_S)
    load.done = True
    return outage


async def run_load(url: str, ns: str, load: Load, outage: Coroutine[Any, Any, Outage]) -> Outage:
    """CLIENTS clients over HTTP for as long as `outage` takes."""
    limits = httpx.Limits(max_connections=CLIENTS)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as http:
        async with asyncio.TaskGroup() as tasks:
            for worker in range(CLIENTS):
                tasks.create_task(client(http, ns, worker, load))
            result = await outage
        return result


async def stored_ids(url: str, ns: str, acked: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """memory_get of every acknowledged key: key → id of those whose content is the one sent,
    and the keys missing."""
    keys = sorted(acked)
    memories: list[dict[str, Any]] = []
    missing: list[str] = []
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        for start in range(0, len(keys), 1000):  # limits.max_refs per get
            body = {"keys": keys[start : start + 1000], "namespace": ns}
            got = (await http.post("/v1/memories/get", json=body)).json()
            memories += got["memories"]
            missing += got["missing"]
    return {m["key"]: m["id"] for m in memories if m["content"] == acked[m["key"]]}, missing


async def on_every_replica(
    qdrant: httpx.AsyncClient, peer: QdrantPeer, collection: str, ids: list[str]
) -> set[str]:
    """The ids among `ids` whose point every replica of its shard holds (read consistency all)."""
    response = await qdrant.post(
        f"{peer.url}/collections/{collection}/points",
        params={"consistency": "all"},
        json={"ids": ids, "with_payload": False, "with_vector": False},
    )
    return {str(point["id"]) for point in response.json()["result"]}


async def test_a_peer_killed_under_load_loses_no_acknowledged_write_and_catches_up_on_restart(
    settings: Settings,
    graph: GraphStore,
    cluster: list[QdrantPeer],
    qdrant_http: httpx.AsyncClient,
    tmp_path: Path,
) -> None:
    ns = f"cluster-{uuid.uuid4().hex[:10]}"
    collections = [collection_name(settings.embedding.model)]
    collections.append(collections[0] + "__context")
    qdrant = cluster[0]
    data_dir = tmp_path / "serve"
    data_dir.mkdir()
    env = {"MNEMO_QDRANT__URL": qdrant.url, "MNEMO_QDRANT__API_KEY": API_KEY, **LAYOUT}
    load = Load()
    with serving(settings, data_dir, **env) as url:
        layouts = [
            (await qdrant_http.get(f"{qdrant.url}/collections/{c}")).json() for c in collections
        ]
        replicas = [await replica_states(qdrant_http, qdrant, c) for c in collections]
        outage = await run_load(
            url, ns, load, kill_and_restart(cluster, qdrant_http, collections, load)
        )
        ids, missing = await stored_ids(url, ns, load.acked)
        await wait_context_drained(graph, ns)
    log = (data_dir / "serve.log").read_text(errors="replace").splitlines()
    retried = [
        line for line in log if "WARNING" in line and "qdrant " in line and "; retrying in" in line
    ]
    print(
        f"qdrant cluster (3 peers, 3 shards × 2 replicas, write consistency 1), {CLIENTS} "
        f"clients: {len(load.acked)} saves acknowledged, {len(load.failures)} failures, "
        f"{len(load.acked) - len(ids)} lost, {len(load.warnings)} warnings, {len(retried)} "
        f"Qdrant calls retried; (answers, p50 ms) by phase {load.figures()}; the restarted "
        f"peer ready in {outage.restart_s:.1f} s, its replicas Active {outage.recovery_s:.1f} s "
        "after its start"
    )
    params = [layout["result"]["config"]["params"] for layout in layouts]
    assert [
        (p["shard_number"], p["replication_factor"], p["write_consistency_factor"]) for p in params
    ] == [(3, 2, 1), (3, 2, 1)]
    assert [sorted(shard for shard, _ in view) for view in replicas] == [[0, 0, 1, 1, 2, 2]] * 2
    # The peer went down for real: the service's peer marked its replicas dead.
    assert outage.killed_states == ["Dead", "Dead"]
    assert load.failures == []
    assert load.warnings == []
    assert missing == []
    assert sorted(ids) == sorted(load.acked)
    assert await on_every_replica(qdrant_http, qdrant, collections[0], list(ids.values())) == set(
        ids.values()
    )
    # Caught up: the replicas of each shard hold the same points.
    for c in collections:
        counts = await local_counts(qdrant_http, cluster, c)
        assert {shard: len(set(n)) for shard, n in counts.items()} == {0: 1, 1: 1, 2: 1}, c
    assert outage.recovery_s < RECOVERY_LIMIT_S


@dataclass
class EngineLoad:
    """Calls of the server engine around a peer's restart, and what failed."""

    done: bool = False
    searches: int = 0
    written: list[str] = field(default_factory=list[str])
    failures: list[str] = field(default_factory=list[str])


def random_point(rng: np.random.Generator) -> VectorPoint:
    vector = rng.standard_normal(384)
    unit = (vector / np.linalg.norm(vector)).astype(np.float32)
    point_id = str(uuid.uuid4())
    return VectorPoint(point_id, unit, "ns", "note", (), point_id, 0)


async def engine_writer(store: ServerVectorStore, load: EngineLoad, seed: int) -> None:
    rng = np.random.default_rng(seed)
    while not load.done:
        point = random_point(rng)
        try:
            await store.upsert([point])
            load.written.append(point.id)
        except BackendUnavailable as exc:
            load.failures.append(f"upsert: {exc.message}")


async def engine_searcher(store: ServerVectorStore, load: EngineLoad, seed: int) -> None:
    rng = np.random.default_rng(seed)
    while not load.done:
        try:
            await store.search(random_point(rng).vector, VectorFilter("ns"), 5)
            load.searches += 1
        except BackendUnavailable as exc:
            load.failures.append(f"search: {exc.message}")


async def test_the_server_engine_answers_every_call_while_a_killed_peer_restarts(
    cluster: list[QdrantPeer], qdrant_http: httpx.AsyncClient
) -> None:
    collection = f"restart_{uuid.uuid4().hex[:8]}"
    client = AsyncQdrantClient(url=cluster[0].url, api_key=API_KEY, timeout=10)
    store = ServerVectorStore(client, collection, 384, CollectionLayout(3, 2, 1))
    await store.open()
    load = EngineLoad()
    try:
        async with asyncio.TaskGroup() as tasks:
            for n in range(4):
                tasks.create_task(engine_writer(store, load, n))
            for n in range(12):
                tasks.create_task(engine_searcher(store, load, 100 + n))
            for victim in cluster[1:]:
                await asyncio.sleep(1.0)
                await asyncio.to_thread(victim.kill)
                await asyncio.sleep(2.0)
                started = time.monotonic()
                await asyncio.to_thread(victim.start, 60)
                await until_active(qdrant_http, [cluster[0], victim], [collection], started)
            await asyncio.sleep(1.0)
            load.done = True
        present = await store.existing_ids(load.written)
    finally:
        await store.close()
    print(
        f"server engine through two peer restarts: {len(load.written)} upserts, "
        f"{load.searches} searches, {len(load.failures)} failures"
    )
    assert load.failures == []
    assert present == set(load.written)
