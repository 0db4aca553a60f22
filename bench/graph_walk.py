"""The graph expansion of retrieve_context alone: the walk of `max_hops` 2 from 5 random seeds
over the perf corpus (links drawn by preferential attachment, about 4 per memory), seeded through
the batch path, timed in-process; also its one statement through the driver.

Run: `python -m bench.graph_walk [--size 10000] [--walks 300]`; writes
bench/results/graph_walk_<size>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import local_neo4j, open_services, summary, write_results
from bench.perf_corpus import corpus
from devtools.seeding import save_in_batches
from service.core.memories import MemoryService
from service.core.models import SaveInput
from service.core.read.channels import Channels
from service.core.write.batch import BatchSaver

NAMESPACE = "walk"
SEEDS = 5
WARM = 30


async def measure(neo4j_uri: str, data: Path, size: int, walks: int) -> dict[str, Any]:
    """Seed `size` memories, then time `walks` walks (after WARM) and the walk's statement."""
    async with open_services(neo4j_uri, data) as (memories, _):
        items = [SaveInput.model_validate(item) for item in corpus(size)]
        started = time.perf_counter()
        await save_in_batches(BatchSaver(memories.settings, memories.stores), NAMESPACE, items)
        seeded_s = time.perf_counter() - started
        keys = [item.key or "" for item in items]
        ids = sorted((await memories.reader.resolve(NAMESPACE, ids=[], keys=keys)).values())
        rng = random.Random(7)
        seed_sets = [{i: rng.random() for i in rng.sample(ids, SEEDS)} for _ in range(WARM + walks)]
        timings = await time_walks(memories, seed_sets)
    return {"size": size, "seeded_s": round(seeded_s, 1), **timings}


async def time_walks(memories: MemoryService, seed_sets: list[dict[str, float]]) -> dict[str, Any]:
    """Each walk through the channel, then its statement alone; the first WARM not counted."""
    channels = Channels(memories.settings.search, memories.stores)
    budget = memories.settings.search.graph_max_nodes
    walk_ms: list[float] = []
    statement_ms: list[float] = []
    reached: list[int] = []
    rows: list[int] = []
    for number, seeds in enumerate(seed_sets):
        started = time.perf_counter()
        found = await channels.walk(NAMESPACE, seeds, 2)
        middle = time.perf_counter()
        answer = await memories.stores.graph.read(
            "graph_walk",
            seeds=list(seeds),
            relevance=seeds,
            namespace=NAMESPACE,
            two_hops=True,
            limit=budget + SEEDS * 8,
            limit_two=2 * budget,
            keep=[],
            min_value=None,
        )
        if number >= WARM:
            walk_ms.append((middle - started) * 1000)
            statement_ms.append((time.perf_counter() - middle) * 1000)
            reached.append(len(found))
            rows.append(len(answer[0]["first"]) + len(answer[0]["second"]))
    return {
        "walk": summary(walk_ms),
        "statement": summary(statement_ms),
        "memories_reached_mean": round(statistics.fmean(reached), 1),
        "rows_mean": round(statistics.fmean(rows), 1),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="The graph walk of retrieve_context alone.")
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--walks", type=int, default=300)
    args = parser.parse_args(argv)
    with local_neo4j() as (neo4j, _), tempfile.TemporaryDirectory() as folder:
        results = asyncio.run(measure(neo4j.uri, Path(folder), args.size, args.walks))
    write_results(f"graph_walk_{args.size}", results)


if __name__ == "__main__":
    main()
