"""The graph expansion of retrieve_context alone: the walk of `max_hops` 2 from 5 random seeds
over the perf corpus (links drawn by preferential attachment, about 4 per memory), seeded through
the batch path, timed in-process: in Neo4j, and over the namespace's link graph held in process
(its load time and size, and the version read each such walk makes).

Run: `python -m bench.graph_walk [--size 10000] [--walks 300]`; writes
bench/results/graph_walk_<size>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.common import local_neo4j, open_services, summary, write_results
from bench.perf_corpus import corpus
from devtools.seeding import save_in_batches
from service.core.memories import MemoryService
from service.core.models import SaveInput
from service.core.read.channels import Channels
from service.core.stores import Stores
from service.core.write.batch import BatchSaver
from service.stores.cypher_library import CypherLibrary
from service.stores.graph_store import GraphStore
from service.stores.link_graph import LinkGraph

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
    """Each walk in Neo4j (a store holding no link graph), then in process once the namespace's
    link graph is loaded, then the version read alone; the first WARM of each not counted."""
    graph = memories.stores.graph
    in_neo4j = GraphStore(
        memories.settings.neo4j.model_copy(update={"link_graph_items": 0}),
        graph.uri,
        CypherLibrary(),
    )
    try:
        neo4j = await walk_times(memories, replace(memories.stores, graph=in_neo4j), seed_sets)
    finally:
        await in_neo4j.close()
    started = time.perf_counter()
    for _ in range(6000):  # a load, and the pause before one, take seconds at most
        if await graph.link_graph(NAMESPACE) is not None:
            break
        await asyncio.sleep(0.01)
    loaded_s = time.perf_counter() - started
    in_process = await walk_times(memories, memories.stores, seed_sets)
    return {
        "walk_in_neo4j": neo4j,
        "walk_in_process": in_process,
        "link_graph": {"loaded_in_s": round(loaded_s, 2), **await snapshot_size(graph)},
        "version_read": summary(await version_reads(graph, 300)),
    }


async def version_reads(graph: GraphStore, count: int) -> list[float]:
    """The one round trip a walk in process still makes: the namespace's graph version."""
    samples: list[float] = []
    for _ in range(WARM + count):
        started = time.perf_counter()
        await graph.read("graph_version", namespace=NAMESPACE)
        samples.append((time.perf_counter() - started) * 1000)
    return samples[WARM:]


async def snapshot_size(graph: GraphStore) -> dict[str, Any]:
    """A snapshot's parts timed (its two reads and its build) and the Python memory it holds."""
    started = time.perf_counter()
    memories = (await graph.read("link_graph_memories", namespace=NAMESPACE))[0]["memories"]
    read_memories = time.perf_counter()
    links = (await graph.read("link_graph_links", namespace=NAMESPACE))[0]["links"]
    read_links = time.perf_counter()
    built = LinkGraph.build((), memories, links)
    built_at = time.perf_counter()
    return {
        "items": built.size,
        "links": len(links),
        "python_mb": round(await held_by_snapshot(graph) / 2**20, 1),
        "read_memories_ms": round((read_memories - started) * 1000, 1),
        "read_links_ms": round((read_links - read_memories) * 1000, 1),
        "build_ms": round((built_at - read_links) * 1000, 1),
    }


async def held_by_snapshot(graph: GraphStore) -> int:
    """Bytes a snapshot holds once the rows it was built from are gone (the ids it shares with
    them included), read and built again under tracemalloc."""
    tracemalloc.start()
    try:
        memories = (await graph.read("link_graph_memories", namespace=NAMESPACE))[0]["memories"]
        links = (await graph.read("link_graph_links", namespace=NAMESPACE))[0]["links"]
        snapshot = LinkGraph.build((), memories, links)
        del memories, links
        gc.collect()
        held, _ = tracemalloc.get_traced_memory()
        del snapshot
    finally:
        tracemalloc.stop()
    return held


async def walk_times(
    memories: MemoryService, stores: Stores, seed_sets: list[dict[str, float]]
) -> dict[str, Any]:
    """The channel's walk over `stores` for each seed set, as retrieve_context walks (with the
    link graph lookup, which it runs beside its channels); the first WARM not counted."""
    channels = Channels(memories.settings.search, stores)
    walk_ms: list[float] = []
    reached: list[int] = []
    for number, seeds in enumerate(seed_sets):
        started = time.perf_counter()
        graph = await channels.link_graph(NAMESPACE)
        found = await channels.walk(NAMESPACE, seeds, 2, graph=graph)
        if number >= WARM:
            walk_ms.append((time.perf_counter() - started) * 1000)
            reached.append(len(found))
    return {**summary(walk_ms), "memories_reached_mean": round(statistics.fmean(reached), 1)}


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
