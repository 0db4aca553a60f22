"""Link sorting (1,000 and 10,000 links) and memory_get of a memory with 1,000 links over HTTP.

Targets (issue "Memories and weighted links"): sort 1,000 ≤ 1 ms, 10,000 ≤ 10 ms;
memory_get with 1,000 links ≤ 50 ms over HTTP.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx

from bench.common import (
    local_neo4j,
    running_service,
    summary,
    timed_ms,
    wait_context,
    write_results,
)
from service.core.sorting import sort_links


def random_links(count: int, rng: random.Random) -> list[dict[str, Any]]:
    return [
        {
            "id": f"id-{i}",
            "key": f"key-{rng.randrange(10**9):09d}",
            "weight": round(rng.random(), 2),
            "score": None if rng.random() < 0.2 else float(rng.randrange(101)),
            "type": "related",
        }
        for i in range(count)
    ]


def bench_sorting() -> dict[str, Any]:
    rng = random.Random(7)
    results: dict[str, Any] = {}
    for count, target in ((1_000, 1.0), (10_000, 10.0)):
        links = random_links(count, rng)
        stats = summary(timed_ms(lambda links=links: sort_links(links, sort=True), 200))
        results[f"sort_{count}_links"] = {
            **stats,
            "target_p50_ms": target,
            "met": stats["p50_ms"] <= target,
        }
    return results


def bench_memory_get() -> dict[str, Any]:
    with local_neo4j() as (neo4j, data), running_service(neo4j, data) as url:
        client = httpx.Client(base_url=url, timeout=60)
        for i in range(1_000):
            target = {"key": f"t-{i}", "content": f"target {i}", "score": i % 101}
            client.post("/v1/memories", json=target).raise_for_status()
        links = [{"key": f"t-{j}", "weight": (j % 100) / 100} for j in range(1_000)]
        client.post("/v1/memories", json={"key": "hub", "content": "hub", "links": links})
        asyncio.run(wait_context(neo4j.uri, timeout_s=600))  # measure reads, not the indexer
        for _ in range(5):
            client.get("/v1/memories/hub")
        samples = timed_ms(lambda: client.get("/v1/memories/hub").raise_for_status(), 100)
        count = len(client.get("/v1/memories/hub").json()["memory"]["links"])
        stats = summary(samples)
        return {
            "memory_get_1000_links_http": {
                **stats,
                "links": count,
                "target_p50_ms": 50.0,
                "met": stats["p50_ms"] <= 50.0,
            }
        }


def main() -> None:
    write_results("links", {**bench_sorting(), **bench_memory_get()})


if __name__ == "__main__":
    main()
