"""Crash consistency under load: 16 clients save, link and edit memories over HTTP while the
daemon is killed with SIGKILL, round after round. After each restart (start-up reconcile) every
acknowledged write is there, and Qdrant holds exactly one vector per memory: the vector of the
memory's text as Neo4j has it. CI: 3 rounds; `make soak`: 20."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import re
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import numpy.typing as npt

from service.config import Settings
from service.core.models import embedding_text
from service.data_folder import discovery, lock
from service.processes import alive
from service.stores.embeddings import LocalMiniLM
from service.stores.neo4j_local import free_port
from service.stores.vector_store import EdgeVectorStore, collection_name
from tests.e2e.conftest import SOAK, service_env
from tests.e2e.test_daemon import MODEL, START_TIMEOUT_S, cli, stop_daemon, wait_for

CLIENTS = 16
ROUNDS = 20 if SOAK else 3
# Each round kills the daemon once this many writes are acknowledged (about five per client:
# saves, links and an edit), so that writes of every kind are in flight at the kill.
KILL_AFTER = 5 * CLIENTS


@dataclass
class Ledger:
    """What the clients sent, and what the daemon acknowledged."""

    acked: dict[str, str] = field(default_factory=dict[str, str])  # key → last acked content
    in_flight: dict[str, str] = field(default_factory=dict[str, str])  # unanswered at the kill
    links: set[tuple[str, str]] = field(default_factory=set[tuple[str, str]])
    writes: int = 0
    failures: list[str] = field(default_factory=list[str])
    kill_at: int = 0  # the acknowledged writes that end the round
    kill_now: asyncio.Event = field(default_factory=asyncio.Event)  # set then, or on a failure

    def allowed(self, key: str) -> set[str]:
        """The contents a memory may hold: its last acknowledged one, or the one in flight."""
        return {c for c in (self.acked.get(key), self.in_flight.get(key)) if c is not None}

    async def save(self, http: httpx.AsyncClient, ns: str, key: str, content: str) -> bool:
        self.in_flight[key] = content
        if not await self._call(http, "POST", "/v1/memories", ns, {"key": key, "content": content}):
            return False
        self.acked[key] = self.in_flight.pop(key)
        return True

    async def link(self, http: httpx.AsyncClient, ns: str, source: str, target: str) -> bool:
        path = f"/v1/memories/{source}/links/{target}"
        if not await self._call(http, "PUT", path, ns, {"weight": 0.7}):
            return False
        self.links.add((source, target))
        return True

    async def _call(
        self, http: httpx.AsyncClient, method: str, path: str, ns: str, body: dict[str, Any]
    ) -> bool:
        """True when acknowledged; False when the daemon died with the request in flight."""
        try:
            response = await http.request(method, path, params={"namespace": ns}, json=body)
        except httpx.TransportError:
            return False
        if response.status_code in (200, 201):
            self.writes += 1
            if self.writes >= self.kill_at:
                self.kill_now.set()
            return True
        self.failures.append(f"{method} {path} {response.status_code} {response.text[:200]}")
        self.kill_now.set()
        return False


async def client(http: httpx.AsyncClient, ns: str, name: str, ledger: Ledger) -> None:
    """Save; link each save to the previous one; at every even step edit the previous one."""
    previous: str | None = None
    for step in itertools.count():
        key = f"{name}-{step}"
        if not await ledger.save(http, ns, key, f"{key}: a note saved under load"):
            return
        if previous is not None:
            if not await ledger.link(http, ns, key, previous):
                return
            if step % 2 == 0 and not await ledger.save(http, ns, previous, f"{previous}: edited"):
                return
        previous = key


async def load_then_kill(info: discovery.DaemonInfo, ns: str, name: str, ledger: Ledger) -> int:
    """CLIENTS clients write until KILL_AFTER writes are acknowledged, then SIGKILL; the writes
    acknowledged in the round (those in flight at the kill included)."""
    before = ledger.writes
    ledger.kill_at = before + KILL_AFTER
    ledger.kill_now.clear()
    limits = httpx.Limits(max_connections=CLIENTS)
    async with (
        httpx.AsyncClient(base_url=info.url, timeout=60, limits=limits) as http,
        asyncio.TaskGroup() as clients,
    ):
        for c in range(CLIENTS):
            clients.create_task(client(http, ns, f"{name}c{c}", ledger))
        async with asyncio.timeout(120):
            await ledger.kill_now.wait()
        os.kill(info.pid, signal.SIGKILL)
    return ledger.writes - before


def restart(env: dict[str, str], data_dir: Path, killed: int) -> discovery.DaemonInfo:
    """`daemon start` once the killed one is gone: its start-up reconcile runs before it listens."""
    assert wait_for(lambda: not alive(killed))
    started = cli(env, "daemon", "start", timeout=START_TIMEOUT_S)
    assert started.returncode == 0, started.stderr
    info = discovery.read(data_dir)
    assert info is not None and info.pid != killed
    return info


async def check_acknowledged(url: str, ns: str, ledger: Ledger) -> dict[str, Any]:
    """Acknowledged saves missing or with a content never sent, acknowledged links missing, and
    the namespace's memory and vector counts."""
    keys = sorted(ledger.acked)
    memories: list[dict[str, Any]] = []
    missing: list[str] = []
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        for start in range(0, len(keys), 1000):  # limits.max_refs per get
            body = {"keys": keys[start : start + 1000], "namespace": ns}
            got = (await http.post("/v1/memories/get", json=body)).json()
            memories += got["memories"]
            missing += got["missing"]
        stats = (await http.get("/v1/stats", params={"namespace": ns})).json()["indexDetails"]
    linked = {(m["key"], link["key"]) for m in memories for link in m["links"]}
    return {
        "missing": missing,
        "other_content": [
            m["key"] for m in memories if m["content"] not in ledger.allowed(m["key"])
        ],
        "missing_links": sorted(ledger.links - linked),
        "vectors - memories": stats["vectorCount"] - stats["memoryCount"],
    }


async def export_memories(url: str, ns: str) -> list[dict[str, Any]]:
    """Every memory of the namespace (GET /v1/export), acknowledged or not."""
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        response = await http.get("/v1/export", params={"namespace": ns})
    lines = [json.loads(line) for line in response.text.splitlines()]
    return [line for line in lines if line["kind"] == "memory"]


async def stored_vectors(
    data_dir: Path, ns: str, ids: list[str]
) -> tuple[int, dict[str, npt.NDArray[np.float32]]]:
    """With the daemon stopped: the namespace's vector count and the vectors of `ids`."""
    with lock.owning(data_dir, "test"):
        store = EdgeVectorStore(data_dir / "qdrant" / collection_name(MODEL), 384)
        await store.open()
        try:
            return await store.count(ns), await store.vectors_of(ids)
        finally:
            await store.close()


@dataclass
class Rounds:
    """What the rounds left: the figures, every memory of the namespace, and its vectors."""

    acknowledged: list[int] = field(default_factory=list[int])
    restart_s: list[float] = field(default_factory=list[float])
    memories: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    vector_count: int = 0
    vectors: dict[str, npt.NDArray[np.float32]] = field(
        default_factory=dict[str, npt.NDArray[np.float32]]
    )


async def kill_rounds(env: dict[str, str], data_dir: Path, ns: str, ledger: Ledger) -> Rounds:
    """ROUNDS times: load, kill -9, restart, check what was acknowledged; then a clean stop."""
    rounds = Rounds()
    started = cli(env, "daemon", "start", timeout=START_TIMEOUT_S)
    assert started.returncode == 0, started.stderr
    info = discovery.read(data_dir)
    assert info is not None
    for round_no in range(ROUNDS):
        rounds.acknowledged.append(await load_then_kill(info, ns, f"r{round_no}", ledger))
        began = time.monotonic()
        info = restart(env, data_dir, info.pid)
        rounds.restart_s.append(time.monotonic() - began)
        assert ledger.failures == []
        assert await check_acknowledged(info.url, ns, ledger) == {
            "missing": [],
            "other_content": [],
            "missing_links": [],
            "vectors - memories": 0,
        }, f"round {round_no}"
    rounds.memories = await export_memories(info.url, ns)
    assert cli(env, "daemon", "stop", timeout=90).returncode == 0
    ids = [m["id"] for m in rounds.memories]
    rounds.vector_count, rounds.vectors = await stored_vectors(data_dir, ns, ids)
    return rounds


async def test_kill_9_under_16_writing_clients_loses_no_acknowledged_write_and_leaves_no_orphan(
    settings: Settings, embedder: LocalMiniLM, tmp_path: Path, namespace: str
) -> None:
    data_dir = tmp_path / "data"
    env = service_env(settings, data_dir, free_port())
    env["MNEMO_LOG_LEVEL"] = "INFO"  # the start-up reconcile logs what it finished
    ledger = Ledger()
    try:
        rounds = await kill_rounds(env, data_dir, namespace, ledger)
    finally:
        stop_daemon(env, data_dir)
    memories, vectors = rounds.memories, rounds.vectors
    texts = [embedding_text(m["title"], m["content"]) for m in memories]
    expected = embedder.embed_sync(texts)
    # Every memory (acknowledged, or in flight at a kill and kept) holds a content its client
    # sent, and has one vector: the vector of that text.
    assert [m["key"] for m in memories if m["content"] not in ledger.allowed(m["key"])] == []
    assert (rounds.vector_count, sorted(vectors)) == (
        len(memories),
        sorted(m["id"] for m in memories),
    )
    cosines = [float(np.dot(vectors[m["id"]], e)) for m, e in zip(memories, expected, strict=True)]
    assert min(cosines) > 0.999
    restart_s = rounds.restart_s
    log = (data_dir / "logs" / "daemon.log").read_text()
    finished = sum(int(n) for n in re.findall(r"start-up reconcile: .*vectors_written=(\d+)", log))
    print(
        f"crash under load: {ROUNDS} rounds of kill -9 under {CLIENTS} writing clients; "
        f"acknowledged writes {ledger.writes} (per round {rounds.acknowledged}; "
        f"{len(ledger.acked)} memories, {len(ledger.links)} links, "
        f"{ledger.writes - len(ledger.acked) - len(ledger.links)} edits), lost 0; "
        f"{len(memories)} memories ({len(memories) - len(ledger.acked)} more were in flight at "
        f"a kill and kept), {rounds.vector_count} vectors, 0 orphans, 0 half-written; "
        f"start-up reconcile wrote {finished} vectors a kill had left pending; restart "
        f"{sum(restart_s) / len(restart_s):.1f} s mean, {max(restart_s):.1f} s max"
    )
