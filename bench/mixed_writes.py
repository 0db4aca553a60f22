"""Hybrid retrieves between saves: what a save costs the retrieves after it, when the saving
process advances its link graph snapshot (`own`: the retriever's process saves) and when it
cannot (`other`: another process saves, through a Neo4j driver and link graphs of its own, so
the retriever's snapshot goes stale and loads again, as before snapshots were advanced).

Steps: a fresh Neo4j, the perf corpus saved through the batch path, every context's first pass
(no model), the queries embedded, 4 rounds of 300 retrieves to warm Neo4j up, then `--rounds`
rounds, the two ways in turn, each from a current snapshot: `--cycles` times one save (a new
~40-word memory with 2 links into the corpus) followed by `--between` hybrid retrieves, each
query its own. Per way:
the retrieves' p50 and p95 wall time (the saves are not timed), the share of retrieves that
walked in process, the snapshots loaded, and the share of views the retrieves found held.

Run: `python -m bench.mixed_writes [--size 2000] [--rounds 4] [--cycles 40] [--between 4]`;
writes bench/results/mixed_writes_<size>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import (
    embedded_channels,
    local_neo4j,
    open_context_index,
    open_services,
    perf_store,
    summary,
    write_results,
)
from bench.perf_corpus import queries
from bench.perf_http import save_bodies
from service.core.memories import MemoryService
from service.core.models import SaveInput
from service.core.read.retrieval import Retrieval
from service.core.search_inputs import RetrieveInput
from service.core.stores import Stores
from service.stores.cypher_library import CypherLibrary
from service.stores.graph_store import GraphStore

NAMESPACE = "mixed-writes"
WARM_UP = 300
WARM_ROUNDS = 4
WAYS = ("own", "other")


class Way:
    """One way's saver, and what its rounds measured."""

    def __init__(self, saver: MemoryService, saves: list[SaveInput]) -> None:
        self.saver = saver
        self.saves = iter(saves)
        self.walls: list[float] = []
        self.counts = {"current": 0, "stale": 0, "loaded": 0, "held": 0, "read": 0}


async def current_snapshot(graph: GraphStore) -> None:
    """Until the namespace's snapshot is loaded at its version (the other way's saves left it
    stale, and loads that went unused wait longer), so that each round starts alike."""
    deadline = time.monotonic() + 300
    while await graph.link_graph(NAMESPACE) is None:
        if time.monotonic() > deadline:
            raise RuntimeError("the link graph snapshot did not load in 300 s")
        await asyncio.sleep(0.1)


async def run_round(
    way: Way, retrieval: Retrieval, graph: GraphStore, asked: Sequence[str], between: int
) -> None:
    """Saves, each followed by `between` retrieves of `asked` (in order), into `way`, from a
    current snapshot."""
    await current_snapshot(graph)
    walks, views = graph.link_graphs.counts, retrieval.context.views.counts
    before = {**walks, **views}
    for start in range(0, len(asked), between):
        await way.saver.save(NAMESPACE, next(way.saves))
        for query in asked[start : start + between]:
            started = time.perf_counter()
            await retrieval.retrieve(NAMESPACE, RetrieveInput(query=query))
            way.walls.append((time.perf_counter() - started) * 1000)
    after = {**walks, **views}
    for name in way.counts:
        way.counts[name] += after[name] - before[name]


def results(way: Way) -> dict[str, Any]:
    counts = way.counts
    walked = counts["current"] + counts["stale"]
    viewed = counts["held"] + counts["read"]
    return {
        "retrieves": len(way.walls),
        "wall_ms": summary(way.walls),
        "walked_in_process": round(counts["current"] / walked, 3) if walked else 0.0,
        "snapshots_loaded": counts["loaded"],
        "views_held": round(counts["held"] / viewed, 3) if viewed else 0.0,
    }


async def measure(
    neo4j_uri: str, data: Path, size: int, rounds: int, cycles: int, between: int
) -> dict[str, Any]:
    async with (
        open_services(neo4j_uri, data) as (memories, _),
        open_context_index(memories, data) as index,
    ):
        stores = memories.stores
        contextual = await perf_store(memories, index, NAMESPACE, size)
        timed = cycles * between
        asked = queries(WARM_UP * WARM_ROUNDS + timed * rounds * len(WAYS), 50, set())
        channels = await embedded_channels(memories, contextual, asked)
        retrieval = Retrieval(memories.settings, contextual, channels)
        for query in asked[: WARM_UP * WARM_ROUNDS]:
            await retrieval.retrieve(NAMESPACE, RetrieveInput(query=query))
        other_graph = GraphStore(memories.settings.neo4j, neo4j_uri, CypherLibrary())
        other = MemoryService(
            memories.settings,
            Stores(other_graph, stores.vectors, stores.embedder, index.vectors),
        )
        saves = {
            name: [
                SaveInput.model_validate({**body, "key": f"{name}-{body['key']}"})
                for body in save_bodies(cycles * rounds, size, seed)
            ]
            for seed, name in enumerate(WAYS)
        }
        ways = {"own": Way(memories, saves["own"]), "other": Way(other, saves["other"])}
        first = WARM_UP * WARM_ROUNDS
        try:
            for number in range(rounds):
                for offset, name in enumerate(WAYS if number % 2 == 0 else WAYS[::-1]):
                    start = first + (2 * number + offset) * timed
                    batch = asked[start : start + timed]
                    await run_round(ways[name], retrieval, stores.graph, batch, between)
        finally:
            await other.close()
            await other_graph.close()
    return {
        "size": size,
        "saves_per_round": cycles,
        "retrieves_per_save": between,
        **{name: results(way) for name, way in ways.items()},
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Hybrid retrieves between saves.")
    parser.add_argument("--size", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--cycles", type=int, default=40)
    parser.add_argument("--between", type=int, default=4)
    args = parser.parse_args(argv)
    with local_neo4j() as (neo4j, _), tempfile.TemporaryDirectory() as data:
        found = asyncio.run(
            measure(neo4j.uri, Path(data), args.size, args.rounds, args.cycles, args.between)
        )
    write_results(f"mixed_writes_{args.size}", found)


if __name__ == "__main__":
    main()
