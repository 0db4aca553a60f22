"""`make bench [SIZE=10000]`: latency, throughput and floor of a real `mnemograph serve` at one
store size; writes bench/results/<size>.json, the chart and the table of docs/performance.md.

Steps: a fresh Neo4j and data folder; the corpus loaded over POST /v1/memories/batch; the
context backlog drained; the service stopped and both HNSW indexes built (`mnemograph index`
and the context collection); the service restarted and measured warm over HTTP; the floor
measured in-process once it stopped; then the peer, Graphiti, on the same Neo4j
(bench/peer_graphiti.py). Usage: python -m bench.perf [--size N] [--repeat N] [--no-peers].
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import httpx

from bench import perf_http as h
from bench.common import (
    RESULTS,
    context_passes,
    local_neo4j,
    machine_facts,
    neo4j_pid,
    service_env,
    service_process,
)
from bench.peer_corpus import RECIPE_NAMES
from bench.perf_corpus import Memory, corpus, hybrid_queries, queries
from bench.perf_floor import measure_floor
from bench.perf_report import chart, load_results, table, update_doc
from service.config import Neo4jSettings
from service.config.stores import BUNDLED_MODEL
from service.stores.embeddings import LocalMiniLM
from service.stores.vector_store import EdgeVectorStore, collection_name

CHUNK = 500
HUB_NAMESPACE = "bench-links"
EMBEDDER_SAMPLE = 1000
# Hybrid retrieves before the first series, with queries of their own: a Neo4j that has only
# loaded the corpus runs its read statements cold (its JIT compiles them over the first hundreds
# of calls); on the 10k store hybrid p50 went 43.9, 28.8, 26.5, 25.0 ms over four runs of 160.
WARM_UP = 300
T = TypeVar("T")


_START = time.perf_counter()


def say(message: str) -> None:
    print(f"[{time.perf_counter() - _START:6.0f} s] {message}", file=sys.stderr, flush=True)


def embedder_rate(items: Sequence[Memory]) -> float:
    """Texts per second of the local embedder alone, in-process, on a sample of the corpus."""
    step = max(1, len(items) // EMBEDDER_SAMPLE)
    texts = [f"{m['title']}\n\n{m['content']}" for m in items[::step]]
    embedder = LocalMiniLM()
    embedder.embed_sync(texts[:64])
    started = time.perf_counter()
    embedder.embed_sync(texts)
    return round(len(texts) / (time.perf_counter() - started), 1)


def chunks(items: Sequence[Memory], size: int = CHUNK) -> Iterator[Sequence[Memory]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def load(client: httpx.Client, items: Sequence[Memory], namespace: str | None = None) -> float:
    """Seconds to save every item over the batch endpoint, in chunks; every item must be saved."""
    params = {"namespace": namespace} if namespace else {}
    started = time.perf_counter()
    for number, chunk in enumerate(chunks(items)):
        body = h.checked(client.post("/v1/memories/batch", json={"memories": chunk}, params=params))
        if body.json()["failed"]:
            raise RuntimeError(f"batch {number}: {body.text[:500]}")
        print(f"\rloaded {number * CHUNK + len(chunk)}/{len(items)}", end="", file=sys.stderr)
    print(file=sys.stderr)
    return time.perf_counter() - started


def load_hub(client: httpx.Client) -> None:
    """`hub` with 1,000 links, in its own namespace (the corpus's graph stays as generated)."""
    targets = [
        {"key": f"t-{i:04d}", "content": f"target {i}", "score": i % 101} for i in range(1000)
    ]
    load(client, targets, HUB_NAMESPACE)
    links = [{"key": t["key"], "weight": round((i % 97) / 97, 2)} for i, t in enumerate(targets)]
    load(
        client,
        [{"key": "hub", "content": "a memory with 1,000 links", "links": links}],
        HUB_NAMESPACE,
    )


def build_indexes(neo4j: Neo4jSettings, folder: Path) -> float:
    """`mnemograph index` (the memories' vectors), then the context collection in-process;
    the service is stopped (one owner of the data folder)."""
    started = time.perf_counter()
    command = [sys.executable, "-m", "service.cli", "index"]
    subprocess.run(command, env=service_env(neo4j, folder), check=True)

    async def context() -> None:
        path = folder / "service" / "qdrant" / (collection_name(BUNDLED_MODEL) + "__context")
        if path.exists():
            store = EdgeVectorStore(path, LocalMiniLM.dimensions)
            await store.open()
            await store.build_index()
            await store.close()

    asyncio.run(context())
    return time.perf_counter() - started


def measure(url: str, size: int, repeat: int, clients: int, pids: dict[str, int]) -> dict[str, Any]:
    """Every series over HTTP, each with inputs of its own; saves last (they add work). `pids`
    (service, neo4j): whose CPU the concurrent series counts."""
    taken: set[str] = set()
    n = repeat + h.WARM
    rng = random.Random(3)
    keys = [f"m-{i:06d}" for i in rng.sample(range(size), min(size, 2 * n))]
    results: dict[str, Any] = {"retrieve_context": {}, "memory_search": {}}
    with httpx.Client(base_url=url, timeout=120) as client:
        warm, hybrid = hybrid_queries(WARM_UP, n, taken)
        for query in warm:
            h.checked(h.retrieve(query, "hybrid")(client))
        for seed, mode in enumerate(("hybrid", "vector", "keyword", "graph")):
            asked = hybrid if mode == "hybrid" else queries(n, 100 + seed, taken)
            sends = [h.retrieve(q, mode) for q in asked]
            results["retrieve_context"][mode] = h.series(client, sends)
            say(f"retrieve_context {mode}: {results['retrieve_context'][mode]}")
        results["retrieve_context"]["kv"] = h.series(
            client, [h.retrieve(k, "kv") for k in keys[:n]]
        )
        for seed, mode in enumerate(("hybrid", "bm25", "vector")):
            sends = [h.search(q, mode) for q in queries(n, 200 + seed, taken)]
            results["memory_search"][mode] = h.series(client, sends)
        pairs = h.keyword_pairs(queries(4 * n, 300, taken))[:n]
        results["memory_fulltext_search"] = {
            "default": h.series(client, map_list(h.fulltext, pairs))
        }
        results["memory_get"] = {
            "default": h.series(client, map_list(h.get, keys[n:])),
            "links_1000": h.series(client, [h.get("hub", HUB_NAMESPACE)] * n),
        }
        results["memory_timeline"] = {"default": h.series(client, map_list(h.timeline, keys[:n]))}
        results["memory_stats"] = {
            "default": h.series(client, [h.stats_call()] * n),
            # bench-links: the hub and its 1,000 targets, saved after the corpus
            "small_namespace": h.series(client, [h.stats_call(HUB_NAMESPACE)] * n),
        }
        bodies = [{"query": q} for q in queries(clients * (repeat // 4 + 1), 400, taken)]
        before = cpu_seconds(pids)
        results["concurrency"] = {str(clients): asyncio.run(h.concurrent(url, bodies, clients))}
        results["concurrency_cpu"] = cpu_per_op(before, cpu_seconds(pids), len(bodies))
        saves = map_list(h.save, h.save_bodies(n, size, 5))
        results["memory_save"] = {"default": h.series(client, saves)}
    return results


def map_list(make: Callable[[T], h.Send], values: Iterable[T]) -> list[h.Send]:
    return [make(value) for value in values]


def cpu_seconds(pids: dict[str, int]) -> dict[str, float]:
    """CPU time (user + system, every thread) of each named process, and of this one (the
    clients) as `bench_client`."""
    used = {name: stat_cpu_s(Path(f"/proc/{pid}/stat")) for name, pid in pids.items()}
    mine = os.times()
    used["bench_client"] = mine.user + mine.system
    return used


def stat_cpu_s(stat: Path) -> float:
    """The CPU seconds (user + system) a /proc `stat` file records, of a process or a thread."""
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def cpu_per_op(before: dict[str, float], after: dict[str, float], ops: int) -> dict[str, float]:
    """CPU ms per operation (`ops`: every request of the window) of each process, and the
    throughput the service and Neo4j alone would reach if they had every core to themselves
    (`ceiling_ops_per_s`)."""
    per_op = {name: round((after[name] - before[name]) * 1000 / ops, 2) for name in before}
    served = sum(ms for name, ms in per_op.items() if name != "bench_client")
    ceiling = (os.cpu_count() or 1) * 1000 / served if served else 0.0
    return {**per_op, "ceiling_ops_per_s": round(ceiling, 1)}


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    kb = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS"))
    return round(kb / 1024, 1)


def machine() -> dict[str, Any]:
    return {
        **machine_facts(),
        "platform": platform.platform(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "load": [round(x, 2) for x in os.getloadavg()],
    }


def graphiti(
    neo4j_uri: str, items: Sequence[Memory], repeat: int, hybrid_p50_ms: float
) -> dict[str, Any]:
    """The peer on the same Neo4j once ours is measured: the corpus in Graphiti's schema, its
    recipes asked the warm-up and hybrid queries of our series (bench/peer_graphiti.py), each
    recipe's p50 also as a ratio to our hybrid p50. graphiti-core is in the `bench` dependency
    group: imported only when the peer runs."""
    from bench.peer_graphiti import measure_peer

    warm, timed = hybrid_queries(WARM_UP, repeat + h.WARM, set())
    peer = asyncio.run(measure_peer(neo4j_uri, items, warm, timed))
    say("graphiti measured")
    for recipe in RECIPE_NAMES:
        peer[recipe]["ratio_to_hybrid"] = round(peer[recipe]["p50_ms"] / hybrid_p50_ms, 2)
    return peer


def run(size: int, repeat: int, clients: int, peers: bool = True) -> dict[str, Any]:
    items = list(corpus(size))
    result: dict[str, Any] = {"size": size, "machine": machine()}
    # Before Neo4j starts: its JIT compilers take both cores for its first minute or two.
    embedder_per_s = embedder_rate(items)
    say(f"embedder alone: {embedder_per_s} texts/s")
    with local_neo4j() as (neo4j, folder):
        say("neo4j started")
        with (
            service_process(neo4j, folder) as (url, _),
            httpx.Client(base_url=url, timeout=600) as c,
        ):
            load_s = load(c, items)
            say(f"loaded {size} memories in {load_s:.1f} s")
            load_hub(c)
            first_pass_s, context_s = asyncio.run(context_passes(neo4j.uri, timeout_s=3 * 3600))
            say(f"contexts searchable {first_pass_s:.1f} s, embedded {context_s:.1f} s after it")
        index_s = build_indexes(neo4j, folder)
        say(f"HNSW indexes built in {index_s:.1f} s")
        with service_process(neo4j, folder) as (url, process):
            pids = {"service": process.pid, "neo4j": neo4j_pid(folder)}
            result.update(measure(url, size, repeat, clients, pids))
            result["rss_mb"] = rss_mb(process.pid)
        say("measured over HTTP")
        floor_queries = queries(repeat + 10, 500, set())
        floor = asyncio.run(measure_floor(neo4j.uri, folder, floor_queries))
        say("floor measured")
        hybrid = result["retrieve_context"]["hybrid"]["p50_ms"]
        if peers:
            result["peers"] = {"graphiti": graphiti(neo4j.uri, items, repeat, hybrid)}
    result["floor"] = {
        "retrieve_context.hybrid": {**floor, "ratio": round(hybrid / floor["floor_ms"], 2)}
    }
    result["ingest"] = {
        "memories_per_s": round(size / load_s, 1),
        "embedder_per_s": embedder_per_s,
        "load_s": round(load_s, 1),
        "links": sum(len(m["links"]) for m in items),
        "context_first_pass_s": round(first_pass_s, 1),
        "context_drain_s": round(context_s, 1),
        "index_s": round(index_s, 1),
    }
    result["machine"]["load_after"] = [round(x, 2) for x in os.getloadavg()]
    return result


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.perf", description=__doc__)
    parser.add_argument("--size", type=int, default=10_000, help="memories in the store")
    parser.add_argument("--repeat", type=int, default=200, help="timed requests per series")
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients")
    parser.add_argument(
        "--no-peers", action="store_true", help="skip the peer (Graphiti) after our series"
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    result = run(args.size, args.repeat, args.clients, peers=not args.no_peers)
    result["machine"]["bench_s"] = round(time.perf_counter() - started, 1)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{args.size}.json").write_text(json.dumps(result, indent=2) + "\n")
    results = load_results()
    chart(results)
    update_doc(results)
    print(table(results))


if __name__ == "__main__":
    main()
