"""Latency over HTTP against a running `mnemograph serve`: series of requests on one keep-alive
client, one distinct input per request, and the hybrid retrieve under concurrent clients."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx

from bench.perf_corpus import memory_text

WARM = 10
Send = Callable[[httpx.Client], httpx.Response]
Stats = dict[str, float]


def stats(samples_ms: Sequence[float], wall_s: float) -> Stats:
    """p50/p95/p99 (nearest rank) and operations per second over the wall time."""
    ordered = sorted(samples_ms)

    def pct(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))], 2)

    return {
        "p50_ms": pct(0.50),
        "p95_ms": pct(0.95),
        "p99_ms": pct(0.99),
        "ops_per_s": round(len(ordered) / wall_s, 1),
    }


def checked(response: httpx.Response) -> httpx.Response:
    if response.status_code >= 300 or not response.json().get("success"):
        raise RuntimeError(f"{response.request.url}: {response.status_code} {response.text[:300]}")
    return response


def series(client: httpx.Client, sends: Sequence[Send]) -> Stats:
    """The first WARM requests warm up; the rest are timed one after another."""
    for send in sends[:WARM]:
        checked(send(client))
    samples: list[float] = []
    started = time.perf_counter()
    for send in sends[WARM:]:
        before = time.perf_counter()
        checked(send(client))
        samples.append((time.perf_counter() - before) * 1000)
    return stats(samples, time.perf_counter() - started)


def retrieve(query: str, mode: str) -> Send:
    body = {"query": query, "search_mode": mode}
    return lambda client: client.post("/v1/retrieve", json=body)


def search(query: str, mode: str) -> Send:
    return lambda client: client.get("/v1/search", params={"query": query, "mode": mode})


def fulltext(keywords: str) -> Send:
    return lambda client: client.get("/v1/fulltext", params={"keywords": keywords})


def get(key: str, namespace: str | None = None) -> Send:
    params = {"namespace": namespace} if namespace else {}
    return lambda client: client.get(f"/v1/memories/{key}", params=params)


def timeline(key: str) -> Send:
    return lambda client: client.get(f"/v1/memories/{key}/timeline")


def stats_call(namespace: str | None = None) -> Send:
    params = {"namespace": namespace} if namespace else {}
    return lambda client: client.get("/v1/stats", params=params)


def save(body: dict[str, Any]) -> Send:
    return lambda client: client.post("/v1/memories", json=body)


def save_bodies(count: int, size: int, seed: int) -> list[dict[str, Any]]:
    """New memories of ~40 words, each with 2 links to memories of the corpus."""
    rng = random.Random(seed)
    bodies: list[dict[str, Any]] = []
    for index in range(count):
        kind, title, content = memory_text(rng)
        targets = rng.sample(range(size), 2)
        bodies.append(
            {
                "key": f"saved-{index:06d}",
                "type": kind,
                "title": title,
                "content": content,
                "links": [{"key": f"m-{t:06d}", "weight": 0.5} for t in targets],
            }
        )
    return bodies


def keyword_pairs(queries: Sequence[str]) -> list[str]:
    """Two distinct content words of each query, comma-separated, each pair once."""
    pairs: dict[str, None] = {}
    for query in queries:
        words = [w.strip("?,.").lower() for w in query.split() if len(w.strip("?,.")) > 3]
        if len(words) >= 2:
            pairs[f"{words[0]},{words[-1]}"] = None
    return list(pairs)


async def concurrent(url: str, bodies: Sequence[dict[str, Any]], clients: int) -> Stats:
    """POST /v1/retrieve with `clients` keep-alive clients at once, each sending its share of
    `bodies` back to back; latency per request and throughput over the wall time."""
    samples: list[float] = []

    async def worker(share: Sequence[dict[str, Any]]) -> None:
        async with httpx.AsyncClient(base_url=url, timeout=120) as client:
            checked(await client.post("/v1/retrieve", json=share[0]))  # opens the connection
            await barrier.wait()
            for body in share[1:]:
                before = time.perf_counter()
                checked(await client.post("/v1/retrieve", json=body))
                samples.append((time.perf_counter() - before) * 1000)

    barrier = asyncio.Barrier(clients + 1)
    async with asyncio.TaskGroup() as group:
        for number in range(clients):
            group.create_task(worker(bodies[number::clients]))
        await barrier.wait()
        started = time.perf_counter()
    return stats(samples, time.perf_counter() - started)
