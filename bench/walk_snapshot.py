"""The graph walk over an in-process link graph alone: no Neo4j, no model, no version read.
The snapshot is built from the perf corpus's links (preferential attachment, about 4 per memory)
with ids as distinct string objects, as a Neo4j read decodes them; walks of 2 hops from 5 random
seeds with retrieve_context's bounds (`search.graph_max_nodes` 500), unpruned (as the floor's
graph expansion walks) and pruned at a path value of 0.3 (as retrieve_context prunes the second
hop); the Python memory the snapshot holds once its rows are gone; and what advancing the
snapshot by a save of this process costs (a new memory with 2 links, each save from the
snapshot the one before left), with the walks over the snapshot the saves left, whose maps
read a top layer of their updates over the loaded base (service/stores/layered_map.py).

Run: `python -m bench.walk_snapshot [--size 10000] [--walks 400]`; writes
bench/results/walk_snapshot_<size>.json.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import time
import tracemalloc
import uuid
from collections.abc import Sequence
from typing import Any

from bench.common import summary, write_results
from bench.perf_corpus import corpus
from service.config import SearchSettings
from service.core.read.walk import Walk
from service.stores.link_graph import GraphWrite, LinkGraph

SEEDS = 5
WARM = 30
PRUNED_VALUE = 0.3


def snapshot_rows(size: int) -> tuple[list[list[Any]], list[list[Any]]]:
    """The rows of `link_graph_memories` and `link_graph_links` for the corpus, every id a
    string object of its own."""
    ids: dict[str, str] = {}
    memories: list[list[Any]] = []
    links: list[list[Any]] = []
    for created, item in enumerate(corpus(size)):
        key = item["key"]
        ids[key] = str(uuid.uuid5(uuid.NAMESPACE_OID, key))
        row = [_copy(ids[key]), key, item["type"], item["tags"], item["score"], created, False]
        memories.append(row)
        links.extend(
            [_copy(ids[key]), _copy(ids[link["key"]]), link["weight"]] for link in item["links"]
        )
    return memories, links


def _copy(text: str) -> str:
    return text.encode().decode()


def held_mb(memories: list[list[Any]], links: list[list[Any]]) -> tuple[LinkGraph, float]:
    """The snapshot, and the MB it holds once the rows are gone (the ids it keeps included)."""
    tracemalloc.start()
    try:
        rows = (
            [[_copy(row[0]), *row[1:]] for row in memories],
            [[_copy(a), _copy(b), w] for a, b, w in links],
        )
        graph = LinkGraph.build((), *rows)
        del rows
        gc.collect()
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return graph, round(held / 2**20, 1)


def walk(graph: LinkGraph, seeds: dict[str, float], budget: int, min_value: float | None) -> int:
    """Two hops with the bounds and bookkeeping of `Channels.walk`; how many memories it found."""
    row = graph.walk(
        seeds=list(seeds),
        relevance=seeds,
        two_hops=True,
        limit=budget + len(seeds) * 8,
        limit_two=2 * budget,
        keep=list(seeds) if min_value is not None else [],
        min_value=min_value,
    )
    reached = Walk(seeds, dict(row["seeds"]), budget, 2)
    wanted = set(reached.step(row["first"], 1))
    reached.step([step for step in row["second"] if step[0] in wanted], 2)
    return len(reached.results())


def time_walks(graph: LinkGraph, walks: int, min_value: float | None) -> dict[str, Any]:
    rng = random.Random(3)
    ids = list(graph.fields)
    budget = SearchSettings().graph_max_nodes
    samples: list[float] = []
    found: list[int] = []
    for number in range(WARM + walks):
        seeds = {_copy(i): 1.0 - 0.05 * n for n, i in enumerate(rng.sample(ids, SEEDS))}
        started = time.perf_counter()
        count = walk(graph, seeds, budget, min_value)
        if number >= WARM:
            samples.append((time.perf_counter() - started) * 1000)
            found.append(count)
    return {**summary(samples), "memories_reached_mean": round(statistics.fmean(found), 1)}


def time_saves(graph: LinkGraph, saves: int) -> tuple[dict[str, Any], LinkGraph]:
    """`LinkGraph.advanced` by `saves` new memories of 2 links each, one after the other; and
    the snapshot the last one left."""
    rng = random.Random(5)
    ids = list(graph.fields)
    samples: list[float] = []
    for number in range(WARM + saves):
        memory_id = str(uuid.uuid4())
        memory: list[Any] = [memory_id, f"saved-{number}", "note", [], None, number, False]
        pairs = [(target, [0.5]) for target in rng.sample(ids, 2)]
        after = (f"v{number}", 0, 0, 0)
        write = GraphWrite(graph.version, after, memory, memory_id, pairs)
        started = time.perf_counter()
        advanced = graph.advanced(write)
        if number >= WARM:
            samples.append((time.perf_counter() - started) * 1000)
        assert advanced is not None
        graph = advanced
    return summary(samples), graph


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="The in-process graph walk alone.")
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--walks", type=int, default=400)
    args = parser.parse_args(argv)
    memories, links = snapshot_rows(args.size)
    started = time.perf_counter()
    LinkGraph.build((), memories, links)
    build_ms = round((time.perf_counter() - started) * 1000, 1)
    graph, python_mb = held_mb(memories, links)
    del memories, links
    results: dict[str, Any] = {
        "size": args.size,
        "items": graph.size,
        "build_ms": build_ms,
        "python_mb": python_mb,
        "unpruned": time_walks(graph, args.walks, None),
        f"pruned_{PRUNED_VALUE}": time_walks(graph, args.walks, PRUNED_VALUE),
    }
    results["advanced_by_a_save"], advanced = time_saves(graph, args.walks)
    results["unpruned_after_the_saves"] = time_walks(advanced, args.walks, None)
    results["top_layer_after_the_saves"] = {
        "fields": len(advanced.fields.top),
        "neighbours": len(advanced.neighbours.top),
    }
    write_results(f"walk_snapshot_{args.size}", results)


if __name__ == "__main__":
    main()
