"""What a read costs without the model: retrieve_context (hybrid) in-process, or memory_search
(hybrid) or memory_fulltext_search with `--call`, every query's vector embedded beforehand, so
the figures are the service's own Python, Qdrant Edge and Neo4j.

Steps: a fresh Neo4j, the perf corpus saved through the batch path, every context's first pass
(no model), the queries embedded, at least 4 rounds of 300 calls, until the CPU per call stops
falling by more than a tenth (Neo4j's JIT), then `--rounds` rounds of 150 timed calls, each
query its own (memory_fulltext_search: the query's words of 4 letters or more, OR). Every round
runs its queries twice, the two ways in turn: with the service's view cache (`views_held`) and
with none (`views_read`: every call reads its memories from Neo4j). Per call and way: p50 and
p95 wall time, the CPU of this process (the service's part: its event loop and Qdrant Edge's
threads) and of Neo4j; and what the cache held at the end and the share of the timed calls'
views it held.

Run: `python -m bench.retrieve_cpu [--size 2000] [--rounds 6] [--call retrieve|search|fulltext]`;
writes bench/results/retrieve_cpu_<size>.json (`search_cpu_<size>.json`,
`fulltext_cpu_<size>.json`).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from bench.common import (
    embedded_channels,
    local_neo4j,
    neo4j_pid,
    open_context_index,
    open_services,
    perf_store,
    summary,
    write_results,
)
from bench.perf import stat_cpu_s
from bench.perf_corpus import queries
from service.core.read.retrieval import Retrieval
from service.core.search_inputs import FulltextInput, RetrieveInput, SearchInput

NAMESPACE = "retrieve-cpu"
WARM_UP = 300
MIN_WARM_ROUNDS = 4  # on the 2-core VM the third round could still be a fifth above the fourth
MAX_WARM_ROUNDS = 8
ROUND = 150
WAYS = ("views_held", "views_read")
Call = Callable[[Retrieval, str], Awaitable[object]]
CALLS: dict[str, Call] = {
    "retrieve": lambda r, query: r.retrieve(NAMESPACE, RetrieveInput(query=query)),
    "search": lambda r, query: r.search(NAMESPACE, SearchInput(query=query)),
    "fulltext": lambda r, query: r.fulltext(NAMESPACE, FulltextInput(keywords=keywords(query))),
}


def keywords(query: str) -> list[str]:
    """memory_fulltext_search's keywords for a query: its words of 4 letters or more."""
    words = ["".join(c for c in word if c.isalnum()) for word in query.split()]
    return [word for word in words if len(word) >= 4] or ["memory"]


class Timed:
    """One way's timed calls: wall ms of each, and the CPU seconds of this process and of Neo4j
    over all of them."""

    def __init__(self, retrieval: Retrieval, neo4j_stat: Path, call: Call) -> None:
        self.retrieval = retrieval
        self.neo4j_stat = neo4j_stat
        self.call = call
        self.walls: list[float] = []
        self.cpu_s = self.neo4j_s = 0.0

    async def run(self, batch: Sequence[str]) -> float:
        """Call with each query of `batch`; the CPU ms per call, this process's and Neo4j's."""
        cpu, neo4j = time.process_time(), stat_cpu_s(self.neo4j_stat)
        for query in batch:
            started = time.perf_counter()
            await self.call(self.retrieval, query)
            self.walls.append((time.perf_counter() - started) * 1000)
        cpu, neo4j = time.process_time() - cpu, stat_cpu_s(self.neo4j_stat) - neo4j
        self.cpu_s += cpu
        self.neo4j_s += neo4j
        return (cpu + neo4j) * 1000 / len(batch)

    def results(self) -> dict[str, Any]:
        calls = len(self.walls)
        return {
            "calls": calls,
            "wall_ms": summary(self.walls),
            "cpu_ms_per_call": {
                "service": round(self.cpu_s * 1000 / calls, 2),
                "neo4j": round(self.neo4j_s * 1000 / calls, 2),
            },
            "round_p50_ms": [
                round(statistics.median(self.walls[i : i + ROUND]), 2)
                for i in range(0, calls, ROUND)
            ],
        }


async def measure(
    neo4j_uri: str, data: Path, neo4j_stat: Path, size: int, rounds: int, call: str
) -> dict[str, Any]:
    async with (
        open_services(neo4j_uri, data) as (memories, _),
        open_context_index(memories, data) as index,
    ):
        contextual = await perf_store(memories, index, NAMESPACE, size)
        asked = queries(WARM_UP * MAX_WARM_ROUNDS + ROUND * rounds, 50, set())
        channels = await embedded_channels(memories, contextual, asked)
        no_cache = memories.settings.model_copy(
            update={"search": memories.settings.search.model_copy(update={"view_cache_mb": 0})}
        )
        ways = {
            "views_held": Retrieval(memories.settings, contextual, channels),
            "views_read": Retrieval(no_cache, contextual, channels),
        }
        warm_up: list[float] = []
        for start in range(0, WARM_UP * MAX_WARM_ROUNDS, WARM_UP):
            batch = asked[start : start + WARM_UP]
            cpu = [await Timed(ways[way], neo4j_stat, CALLS[call]).run(batch) for way in WAYS]
            warm_up.append(round(sum(cpu) / 2, 2))
            if len(warm_up) >= MIN_WARM_ROUNDS and warm_up[-1] > 0.9 * warm_up[-2]:
                break
        first = WARM_UP * MAX_WARM_ROUNDS
        timed = {way: Timed(ways[way], neo4j_stat, CALLS[call]) for way in WAYS}
        views = ways["views_held"].context.views
        before = dict(views.counts)
        for number, start in enumerate(range(first, first + ROUND * rounds, ROUND)):
            for way in WAYS if number % 2 == 0 else WAYS[::-1]:
                await timed[way].run(asked[start : start + ROUND])
        held, read = (views.counts[outcome] - before[outcome] for outcome in ("held", "read"))
    return {
        "size": size,
        "call": call,
        "warm_up_cpu_ms_per_call": warm_up,
        **{way: timed[way].results() for way in WAYS},
        "view_cache": {
            "mb": round(views.used / 2**20, 2),
            "share_of_views_asked": round(held / (held + read), 3),
        },
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="A read's cost without the model.")
    parser.add_argument("--size", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--call", choices=list(CALLS), default="retrieve")
    args = parser.parse_args(argv)
    with local_neo4j() as (neo4j, folder), tempfile.TemporaryDirectory() as data:
        stat = Path(f"/proc/{neo4j_pid(folder)}/stat")
        results = asyncio.run(
            measure(neo4j.uri, Path(data), stat, args.size, args.rounds, args.call)
        )
    write_results(f"{args.call}_cpu_{args.size}", results)


if __name__ == "__main__":
    main()
