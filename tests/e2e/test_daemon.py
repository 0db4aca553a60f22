"""End-to-end: one daemon owns the data folder; stdio bridges from any working directory and HTTP
callers share its store; a second owner is turned away; kill -9 is survived (real processes)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult

from service.config import Settings
from service.core.memories import MemoryService
from service.core.models import LinkSpec, SaveInput
from service.core.stores import Stores
from service.data_folder import discovery, folder_id, lock
from service.processes import alive
from service.stores.graph_store import GraphStore
from service.stores.neo4j_local import free_port
from service.stores.vector_store import EdgeVectorStore, collection_name
from service.version import VERSION
from tests.e2e.conftest import REPO, HttpApi, service_env

START_TIMEOUT_S = 240
MODEL = "all-MiniLM-L6-v2"
# What broke the running server in issue 12: a second process loading its Qdrant Edge shard.
FOREIGN_OPENER = """
import sys
import qdrant_edge as edge
params = edge.EdgeVectorParams(384, edge.Distance.Cosine)
try:
    edge.EdgeShard.load(sys.argv[1], edge.EdgeConfig(vectors={"dense": params}))
except Exception as exc:
    print(exc)
"""


@dataclass(frozen=True)
class Daemon:
    url: str
    data_dir: Path
    env: dict[str, str]


def cli(env: dict[str, str], *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service.cli", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def bridge(env: dict[str, str], cwd: Path) -> StdioServerParameters:
    """`mnemograph mcp` started from `cwd` (a folder with no data in it)."""
    cwd.mkdir(parents=True, exist_ok=True)
    args = ["-m", "service.cli", "mcp"]
    return StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(cwd))


def stop_daemon(env: dict[str, str], data_dir: Path) -> None:
    """`daemon stop`, and SIGKILL for whatever still owns the folder (never leak a daemon)."""
    cli(env, "daemon", "stop", timeout=90)
    owner = lock.holder(data_dir)
    if owner is not None and owner.pid is not None:
        os.kill(owner.pid, signal.SIGKILL)


def payload(result: Any) -> dict[str, Any]:
    content: dict[str, Any] | None = result.structured_content
    assert content is not None
    return content


def comparable(result: CallToolResult) -> dict[str, Any]:
    """A tool result as data, less what every read changes (access time and count)."""
    dumped = result.model_dump()
    dumped["content"] = [json.loads(item["text"]) for item in dumped["content"]]
    for body in (dumped["structured_content"], *dumped["content"]):
        for memory in body.get("memories", []):
            del memory["accessed_at"], memory["access_count"]
    return dumped


@pytest.fixture(scope="module")
def daemon(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """A daemon started with `mnemograph daemon start` on its own data folder and port."""
    data_dir = tmp_path_factory.mktemp("daemon-data")
    env = service_env(settings, data_dir, free_port())
    try:
        started = cli(env, "daemon", "start", timeout=START_TIMEOUT_S)
        assert started.returncode == 0, started.stderr
        info = discovery.read(data_dir)
        assert info is not None
        yield Daemon(info.url, data_dir, env)
    finally:
        stop_daemon(env, data_dir)


def test_daemon_status_reports_pid_url_uptime_data_folder_and_neo4j(daemon: Daemon) -> None:
    done = cli(daemon.env, "daemon", "status")
    status = json.loads(done.stdout)
    info = discovery.read(daemon.data_dir)
    assert info is not None
    assert done.returncode == 0
    assert (status["state"], status["pid"], status["url"]) == ("running", info.pid, daemon.url)
    assert status["data_dir"] == str(daemon.data_dir)
    assert status["uptime_s"] >= 0
    assert status["neo4j"]["status"] == "ok"
    assert lock.holder(daemon.data_dir) == lock.Holder(info.pid, "serve", daemon.url)


def test_a_used_folder_is_never_served_by_the_server_of_another_folder(
    daemon: Daemon, tmp_path: Path
) -> None:
    health = httpx.get(f"{daemon.url}/healthz").json()
    assert health == {
        "success": True,
        "status": "ok",
        "version": VERSION,
        "data_folder_id": folder_id.read(daemon.data_dir),
    }
    other = tmp_path / "other-data"
    with lock.owning(other, "test"):  # a folder some owner has opened: it has an id of its own
        pass
    port = daemon.url.rsplit(":", 1)[1]
    env = {**daemon.env, "MNEMO_DATA_DIR": str(other), "MNEMO_HTTP__PORT": port}
    refusal = (
        f"the server at {daemon.url} serves another data folder than {other}; stop it, give this "
        "folder its own port (MNEMO_HTTP__PORT), or set MNEMO_DATA_DIR to that server's folder\n"
    )
    started = cli(env, "daemon", "start")
    asked = cli(env, "stats")
    assert (started.returncode, started.stderr) == (1, f"mnemograph: {refusal}")
    assert (asked.returncode, asked.stderr) == (4, f"mnemograph: unreachable: {refusal}")
    assert discovery.read(other) is None and lock.holder(other) is None


async def test_two_stdio_clients_from_other_folders_share_one_store_with_http(
    daemon: Daemon, tmp_path: Path, namespace: str
) -> None:
    first = bridge(daemon.env, tmp_path / "editor")
    second = bridge(daemon.env, tmp_path / "assistant")
    async with Client(first, mode="legacy") as one, Client(second) as two:
        saved_one = await one.call_tool(
            "memory_save",
            {"key": "from-one", "content": "saved by the editor", "namespace": namespace},
        )
        saved_two = await two.call_tool(
            "memory_save",
            {"key": "from-two", "content": "saved by the assistant", "namespace": namespace},
        )
        assert payload(saved_one)["created"] and payload(saved_two)["created"]
        read_by_two = await two.call_tool("memory_get", {"key": "from-one", "namespace": namespace})
        read_by_one = await one.call_tool("memory_get", {"key": "from-two", "namespace": namespace})
    assert payload(read_by_two)["memories"][0]["content"] == "saved by the editor"
    assert payload(read_by_one)["memories"][0]["content"] == "saved by the assistant"
    async with httpx.AsyncClient(base_url=daemon.url, timeout=30) as client:
        both = await HttpApi(client).call(
            "memory_get", namespace=namespace, keys=["from-one", "from-two"]
        )
    assert sorted(m["key"] for m in both["memories"]) == ["from-one", "from-two"]
    assert list((tmp_path / "editor").iterdir()) == []


async def test_a_second_owner_exits_within_a_second_and_the_first_keeps_working(
    daemon: Daemon, namespace: str
) -> None:
    async with httpx.AsyncClient(base_url=daemon.url, timeout=30) as client:
        api = HttpApi(client)
        for i in range(3):
            await api.call("memory_save", namespace=namespace, key=f"k{i}", content=f"before {i}")
        holder = lock.holder(daemon.data_dir)
        assert holder is not None
        for command in (["serve"], ["mcp", "--embedded"], ["reconcile", "--full"]):
            started = time.monotonic()
            done = cli(daemon.env, *command)
            elapsed = time.monotonic() - started
            assert done.returncode == lock.BUSY_EXIT
            assert elapsed < 1.0, command
            assert done.stderr == lock.busy_message(daemon.data_dir, holder) + "\n"
        for i in range(3, 6):
            saved = await api.call(
                "memory_save", namespace=namespace, key=f"k{i}", content=f"after {i}"
            )
            assert saved["success"] is True
        got = await api.call("memory_get", namespace=namespace, keys=[f"k{i}" for i in range(6)])
        found = await api.call("memory_search", namespace=namespace, query="after 4", limit=10)
        ready = await client.get("/readyz")
    assert sorted(m["key"] for m in got["memories"]) == [f"k{i}" for i in range(6)]
    assert "k4" in [hit["key"] for hit in found["results"]]
    assert ready.status_code == 200


async def test_the_bridge_relays_error_envelopes_and_large_results_unchanged(
    daemon: Daemon, tmp_path: Path, namespace: str
) -> None:
    content = "".join(
        f"line {i}: the quick brown fox jumps over the lazy dog\n" for i in range(1200)
    )
    assert len(content.encode()) > 60_000
    calls: list[tuple[str, dict[str, Any]]] = [
        ("memory_get", {"key": "big", "namespace": namespace}),
        ("memory_get", {"key": "big", "sortLinks": "yes", "namespace": namespace}),
        ("memory_save", {"content": "x" * 102_401, "namespace": namespace}),
        ("memory_link", {"from": "big", "to": "missing", "namespace": namespace}),
    ]
    async with (
        Client(bridge(daemon.env, tmp_path)) as bridged,
        Client(f"{daemon.url}/mcp") as direct,
    ):
        saved = await bridged.call_tool(
            "memory_save", {"key": "big", "content": content, "namespace": namespace}
        )
        assert payload(saved)["memory"]["content"] == content
        for tool, arguments in calls:
            via_bridge = await bridged.call_tool(tool, arguments)
            via_http = await direct.call_tool(tool, arguments)
            assert comparable(via_bridge) == comparable(via_http), tool
        got = payload(await bridged.call_tool("memory_get", {"key": "big", "namespace": namespace}))
    assert got["memories"][0]["content"] == content


async def test_a_store_damaged_by_a_foreign_opener_is_reopened_and_saves_go_on(
    daemon: Daemon, namespace: str
) -> None:
    shard = daemon.data_dir / "qdrant" / collection_name(MODEL)
    async with httpx.AsyncClient(base_url=daemon.url, timeout=60) as client:
        api = HttpApi(client)
        await api.call("memory_save", namespace=namespace, key="before", content="before damage")
        opened = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-c", FOREIGN_OPENER, str(shard)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert "WouldBlock" in opened.stdout
        saved = await api.call("memory_save", namespace=namespace, key="after", content="after")
        await asyncio.sleep(1.5)  # a store that flushes in the background has failed by now
        ready = await client.get("/readyz")
        again = await api.call("memory_save", namespace=namespace, key="later", content="later")
        found = await api.call("memory_search", namespace=namespace, query="after", limit=5)
    assert (saved["success"], again["success"]) == (True, True)
    assert ready.status_code == 200, ready.text
    assert [hit["key"] for hit in found["results"]][:1] == ["after"]
    assert "reopening" in (daemon.data_dir / "logs" / "daemon.log").read_text()


async def test_daemon_stop_closes_the_stores_and_frees_the_folder(
    daemon: Daemon, namespace: str
) -> None:
    async with httpx.AsyncClient(base_url=daemon.url, timeout=30) as client:
        saved = await HttpApi(client).call("memory_save", namespace=namespace, content="last")
    stopped = cli(daemon.env, "daemon", "stop", timeout=90)
    memory_id = saved["memory"]["id"]
    assert stopped.returncode == 0, stopped.stderr
    assert discovery.read(daemon.data_dir) is None
    assert lock.holder(daemon.data_dir) is None
    assert await vectors_in(daemon.data_dir, namespace, [memory_id]) == (1, {memory_id})


async def test_kill_9_during_saves_then_a_new_stdio_client_brings_the_daemon_back_with_every_save(
    settings: Settings, tmp_path: Path, namespace: str
) -> None:
    data_dir = tmp_path / "data"
    env = service_env(settings, data_dir, free_port())
    try:
        async with Client(bridge(env, tmp_path / "first")) as first:
            await first.call_tool(
                "memory_save", {"key": "start", "content": "x", "namespace": namespace}
            )
        info = discovery.read(data_dir)
        assert info is not None
        acknowledged = await save_until_killed(info, namespace)
        assert len(acknowledged) >= 10
        assert wait_for(lambda: not alive(info.pid))
        async with Client(bridge(env, tmp_path / "second")) as second:
            got = await second.call_tool(
                "memory_get", {"keys": acknowledged, "namespace": namespace}
            )
            stats = payload(await second.call_tool("memory_stats", {"namespace": namespace}))
        restarted = discovery.read(data_dir)
        assert restarted is not None and restarted.pid != info.pid
        memories = payload(got)["memories"]
        assert sorted(m["key"] for m in memories) == sorted(acknowledged)
        assert payload(got)["missing"] == []
        assert cli(env, "daemon", "stop", timeout=90).returncode == 0
        # The start-up reconcile finished what the kill left: every memory has its vector (the
        # save in flight is there too when its Neo4j write committed before the kill).
        ids = [m["id"] for m in memories]
        assert stats["memoryCount"] in (len(ids) + 1, len(ids) + 2)
        assert await vectors_in(data_dir, namespace, ids) == (stats["memoryCount"], set(ids))
    finally:
        stop_daemon(env, data_dir)


async def save_until_killed(info: discovery.DaemonInfo, namespace: str) -> list[str]:
    """Save over HTTP one after another; SIGKILL the daemon while the eleventh is in flight;
    the saves it acknowledged."""
    acknowledged: list[str] = []
    loop = asyncio.get_running_loop()
    async with httpx.AsyncClient(base_url=info.url, timeout=30) as client:
        api = HttpApi(client)
        for i in range(1000):
            try:
                saved = await api.call(
                    "memory_save", namespace=namespace, key=f"s{i}", content=f"save {i}"
                )
            except httpx.HTTPError:
                break
            if saved.get("success"):
                acknowledged.append(f"s{i}")
            if len(acknowledged) == 10:
                loop.call_later(0.02, os.kill, info.pid, signal.SIGKILL)
    return acknowledged


async def vectors_in(data_dir: Path, namespace: str, ids: list[str]) -> tuple[int, set[str]]:
    """With the daemon stopped: the namespace's vector count and which of `ids` have a vector."""
    with lock.owning(data_dir, "test"):
        store = EdgeVectorStore(data_dir / "qdrant" / collection_name(MODEL), 384)
        await store.open()
        try:
            return await store.count(namespace), await store.existing_ids(ids)
        finally:
            await store.close()


def wait_for(condition: Callable[[], bool], timeout_s: float = 10) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


async def test_reconcile_refreshes_the_context_backlog_itself_and_prints_its_report(
    settings: Settings, memories: MemoryService, graph: GraphStore, tmp_path: Path, namespace: str
) -> None:
    # Start-up leaves the backlog to the service's indexer; the reconcile command has none
    # running and refreshes every pending context itself before it prints its report (that of
    # the memories saved to its data folder's vectors).
    embedder = memories.stores.embedder
    folder = tmp_path / "data" / "qdrant" / collection_name(embedder.model)
    vectors = EdgeVectorStore(folder, embedder.dimensions)
    await vectors.open()
    saver = MemoryService(settings, Stores(graph, vectors, embedder))
    await saver.save(namespace, SaveInput(key="ask", content="when is the dentist?"))
    answer = SaveInput(key="answer", content="Thursday at nine", links=[LinkSpec(key="ask")])
    await saver.save(namespace, answer)
    await saver.close()
    await vectors.close()
    done = cli(service_env(settings, tmp_path / "data"), "reconcile", timeout=300)
    backlog = await graph.read("context_backlog", namespace=namespace, vector_store=None)
    assert done.returncode == 0, done.stderr
    assert list(json.loads(done.stdout)) == [
        "vectors_written",
        "vectors_deleted",
        "orphans_deleted",
        "missing_vectors",
        "keyword_indexes_dropped",
    ]
    assert backlog[0]["backlog"] == 0


async def test_reconcile_lists_the_other_vector_storages_and_adopts_one_of_them(
    settings: Settings, memories: MemoryService, graph: GraphStore, tmp_path: Path, namespace: str
) -> None:
    # Another model's storage: a shard of its own, written before this data folder's service.
    embedder = memories.stores.embedder
    other = EdgeVectorStore(tmp_path / "other-model", embedder.dimensions)
    await other.open()
    saver = MemoryService(settings, Stores(graph, other, embedder))
    await saver.save(namespace, SaveInput(key="elsewhere", content="the old model's memory"))
    await saver.close()
    await other.close()
    env = service_env(settings, tmp_path / "data")

    before = json.loads(cli(env, "reconcile", "--storages", timeout=300).stdout)
    adopting = cli(env, "reconcile", "--adopt", other.store_id, timeout=300)
    after = json.loads(cli(env, "reconcile", "--storages", timeout=300).stdout)

    assert adopting.returncode == 0, adopting.stderr
    assert list(before) == ["storage", "others"]
    assert (before["others"][other.store_id], before["storage"] in before["others"]) == (1, False)
    report = json.loads(adopting.stdout)
    assert (report["adopted"], report["vectors_written"] >= 1) == (1, True)
    assert other.store_id not in after["others"]
    assert after["storage"] == before["storage"]


def test_reconcile_adopts_neither_its_own_storage_nor_one_without_memories(
    settings: Settings, tmp_path: Path
) -> None:
    env = service_env(settings, tmp_path / "data")
    own_id = json.loads(cli(env, "reconcile", "--storages", timeout=300).stdout)["storage"]
    own = cli(env, "reconcile", "--adopt", own_id, timeout=300)
    unknown = cli(env, "reconcile", "--adopt", "no-such-storage", timeout=300)
    both = cli(env, "reconcile", "--storages", "--adopt", "no-such-storage")

    assert (own.returncode, own.stdout) == (2, "")
    assert own.stderr.endswith(
        f"reconcile --adopt: {own_id} is this service's own vector storage\n"
    )
    assert (unknown.returncode, unknown.stdout) == (2, "")
    assert (
        "reconcile --adopt: no memory's vector was written to no-such-storage; " in unknown.stderr
    )
    assert both.returncode == 2
    assert "argument --adopt: not allowed with argument --storages" in both.stderr
