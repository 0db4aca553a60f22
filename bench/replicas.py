"""`python -m bench.replicas [--size N]`: throughput of one and of two `mnemograph serve` replicas
on one Neo4j and one Qdrant server, 8 concurrent clients; writes bench/results/replicas.json.

Steps: a fresh Neo4j (bench.common.local_neo4j) and a Qdrant server process
(tests/qdrant_process.py) on free ports; the corpus of bench/perf_corpus.py loaded over
POST /v1/memories/batch through one replica, its context backlog drained. Then, `--rounds` times,
1 replica and 2 replicas in turn (the second started for its turn and stopped after it): each
replica warmed up with hybrid retrieves of its own; `--clients` keep-alive clients, client i
sending to replica i mod n (a round-robin balancer), each request with an input of its own:
hybrid retrieve_context back to back, then memory_save of new memories with 2 links each (a
failed request is counted and listed, not retried); then the seconds until the context backlog
the saves left is drained (both replicas' indexers share it).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Generator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx

from bench import perf_http as h
from bench.common import REPO, local_neo4j, service_env, wait_context, write_results
from bench.perf import load, machine, say
from bench.perf_corpus import corpus, queries
from service.config import Neo4jSettings
from service.stores.neo4j_local import free_port
from tests.qdrant_process import VERSION, QdrantPeer

API_KEY = "bench-replicas"
WARM_UP = 40  # hybrid retrieves per replica before each measurement, sequential
Request = tuple[str, str, dict[str, Any]]  # method, path, JSON body


@contextmanager
def replica(neo4j: Neo4jSettings, qdrant: QdrantPeer, data: Path) -> Generator[str]:
    """`mnemograph serve` on that Neo4j and Qdrant server with a data folder of its own."""
    port = free_port()
    env = service_env(neo4j, data, port)
    # With both stores remote `serve` takes no data-folder lock, which is what creates the
    # folder, yet writes its discovery file there: it must exist.
    (data / "service").mkdir(parents=True, exist_ok=True)
    env.update(MNEMO_QDRANT__URL=qdrant.url, MNEMO_QDRANT__API_KEY=API_KEY)
    command = [sys.executable, "-m", "service.cli", "serve"]
    process = subprocess.Popen(command, cwd=REPO, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while not ready(url):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"mnemograph serve did not become ready at {url}")
            time.sleep(0.3)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=60)


def ready(url: str) -> bool:
    try:
        return httpx.get(f"{url}/readyz", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


async def concurrent(
    urls: Sequence[str], requests: Sequence[Request], clients: int
) -> dict[str, Any]:
    """`clients` keep-alive clients at once, client i on replica i mod len(urls), each sending
    its share of `requests` back to back; latency per answered request, throughput (answered
    successes over the wall time) and the failures, each with its status and message."""
    samples: list[float] = []
    failures: list[str] = []

    async def worker(url: str, share: Sequence[Request]) -> None:
        async with httpx.AsyncClient(base_url=url, timeout=300) as client:
            await client.get("/readyz")  # opens the connection
            await barrier.wait()
            for method, path, body in share:
                before = time.perf_counter()
                response = await client.request(method, path, json=body)
                if response.status_code >= 300:
                    failures.append(f"{response.status_code} {response.text[:300]}")
                    continue
                samples.append((time.perf_counter() - before) * 1000)

    barrier = asyncio.Barrier(clients + 1)
    async with asyncio.TaskGroup() as group:
        for number in range(clients):
            group.create_task(worker(urls[number % len(urls)], requests[number::clients]))
        await barrier.wait()
        started = time.perf_counter()
    return {**h.stats(samples, time.perf_counter() - started), "failures": failures}


def warm_up(urls: Sequence[str], taken: set[str], seed: int) -> None:
    for number, url in enumerate(urls):
        with httpx.Client(base_url=url, timeout=300) as client:
            for query in queries(WARM_UP, seed + number, taken):
                h.checked(h.retrieve(query, "hybrid")(client))


def measure(
    urls: Sequence[str], neo4j: Neo4jSettings, args: argparse.Namespace, taken: set[str], turn: int
) -> dict[str, Any]:
    """One turn: hybrid retrieves, then saves, then the context drain, on these replicas."""
    warm_up(urls, taken, 1000 + 10 * turn)
    asked = queries(args.clients * args.retrieves, 2000 + turn, taken)
    retrieves: list[Request] = [("POST", "/v1/retrieve", {"query": q}) for q in asked]
    retrieve = asyncio.run(concurrent(urls, retrieves, args.clients))
    say(f"{len(urls)} replica(s), retrieve_context hybrid: {brief(retrieve)}")
    bodies = h.save_bodies(args.clients * args.saves, args.size, 50 + turn)
    saves: list[Request] = [
        ("POST", "/v1/memories", {**body, "key": f"turn{turn}-{body['key']}"}) for body in bodies
    ]
    save = asyncio.run(concurrent(urls, saves, args.clients))
    say(f"{len(urls)} replica(s), memory_save: {brief(save)}")
    drain_s = asyncio.run(wait_context(neo4j.uri, timeout_s=1800))
    return {
        "replicas": len(urls),
        "retrieve_context_hybrid": retrieve,
        "memory_save": save,
        "context_drain_after_saves_s": round(drain_s, 1),
    }


def brief(result: dict[str, Any]) -> dict[str, Any]:
    return {**result, "failures": len(result["failures"])}


def summarize(turns: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per replica count: the mean throughput over the turns, and each turn's."""
    summary: dict[str, Any] = {}
    for replicas in sorted({turn["replicas"] for turn in turns}):
        mine = [turn for turn in turns if turn["replicas"] == replicas]
        summary[str(replicas)] = {
            call: {
                "ops_per_s_mean": round(statistics.fmean(t[call]["ops_per_s"] for t in mine), 1),
                "ops_per_s": [t[call]["ops_per_s"] for t in mine],
                "p50_ms": [t[call]["p50_ms"] for t in mine],
                "p95_ms": [t[call]["p95_ms"] for t in mine],
                "failures": [len(t[call]["failures"]) for t in mine],
            }
            for call in ("retrieve_context_hybrid", "memory_save")
        }
    return summary


def run(args: argparse.Namespace) -> dict[str, Any]:
    details = machine()  # the load average before the run
    items = list(corpus(args.size))
    taken: set[str] = set()
    turns: list[dict[str, Any]] = []
    with local_neo4j() as (neo4j, folder):
        qdrant = QdrantPeer(folder / "qdrant", api_key=API_KEY).start()
        try:
            say("neo4j and qdrant started")
            with replica(neo4j, qdrant, folder / "replica-a") as first:
                with httpx.Client(base_url=first, timeout=600) as client:
                    load_s = load(client, items)
                drain_s = asyncio.run(wait_context(neo4j.uri, timeout_s=3 * 3600))
                say(f"loaded {args.size} memories in {load_s:.1f} s, context {drain_s:.1f} s")
                for turn, replicas in enumerate([1, 2] * args.rounds):
                    with ExitStack() as more:
                        urls = [first]
                        for n in range(1, replicas):
                            data = folder / f"replica-{n}-turn-{turn}"
                            urls.append(more.enter_context(replica(neo4j, qdrant, data)))
                        turns.append(measure(urls, neo4j, args, taken, turn))
        finally:
            qdrant.stop()
    return {
        "setup": {
            "size": args.size,
            "clients": args.clients,
            "retrieves_per_client": args.retrieves,
            "saves_per_client": args.saves,
            "qdrant": f"server {VERSION}, standalone, 1 shard",
            "neo4j": "Community 5.26, local, 2 GB heap",
            "load_s": round(load_s, 1),
            "context_drain_after_load_s": round(drain_s, 1),
        },
        "machine_details": details,
        "summary": summarize(turns),
        "turns": turns,
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.replicas", description=__doc__)
    parser.add_argument("--size", type=int, default=1000, help="memories in the store")
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients")
    parser.add_argument("--retrieves", type=int, default=30, help="retrieves per client")
    parser.add_argument("--saves", type=int, default=12, help="saves per client")
    parser.add_argument("--rounds", type=int, default=2, help="turns of 1 then 2 replicas")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    result = run(args)
    result["machine_details"]["bench_s"] = round(time.perf_counter() - started, 1)
    result["machine_details"]["load_after"] = [round(x, 2) for x in os.getloadavg()]
    write_results("replicas", result)


if __name__ == "__main__":
    main()
