"""The graph walk in process: a namespace's memories (their walk fields) and LINK edges held
as a snapshot, answering `graph_walk` and `graph_neighbors` with the rows Neo4j would return.

A snapshot is used only while the namespace's `graph_version` (NamespaceStats, moved by every
statement that changes a memory's walk fields or a link) equals the one it was loaded at, so
every writer, in this process or another, makes it stale; a stale one is loaded again in the
background and the walk meanwhile runs in Neo4j.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

DEFAULT_WEIGHT = 0.5  # a link stored without a weight, as the walk statements value it
MIN_RELOAD_PAUSE_S = 0.5
RELOAD_PAUSE_FACTOR = 10  # a namespace is loaded again at most once per 10x its last load time
TOO_BIG_PAUSE_S = 60.0  # a namespace too big to hold is looked at again after this long
Row = dict[str, Any]
Read = Callable[..., Awaitable[list[Row]]]
Neighbour = tuple[str, str, Any]  # key, id, strongest link weight (None: no weight stored)


@dataclass(frozen=True)
class LinkGraph:
    """One namespace's link graph at `version`: each memory's walk fields ([key, type, tags,
    score, created ms]), whether it is superseded, and its neighbours over LINK in either
    direction ordered by key, each with the strongest weight of the links between the two."""

    version: int
    fields: Mapping[str, tuple[Any, ...]]
    superseded: Mapping[str, bool]
    neighbours: Mapping[str, Sequence[Neighbour]]

    @classmethod
    def build(
        cls, version: int, memories: Iterable[Sequence[Any]], links: Iterable[Sequence[Any]]
    ) -> LinkGraph:
        """From the rows of `link_graph_memories` ([id, key, type, tags, score, created ms,
        superseded]) and `link_graph_links` ([from id, to id, weight])."""
        fields: dict[str, tuple[Any, ...]] = {}
        superseded: dict[str, bool] = {}
        for memory_id, *walk_fields, is_superseded in memories:
            fields[memory_id] = tuple(walk_fields)
            superseded[memory_id] = bool(is_superseded)
        strongest: dict[str, dict[str, Any]] = {}
        for source, target, weight in links:
            if source not in fields or target not in fields:
                continue
            for one, other in ((source, target), (target, source)):
                known = strongest.setdefault(one, {})
                known[other] = _stronger(known[other], weight) if other in known else weight
        neighbours = {
            memory_id: sorted(((fields[n][0], n, w) for n, w in found.items()), key=_by_key)
            for memory_id, found in strongest.items()
        }
        return cls(version, fields, superseded, neighbours)

    @property
    def size(self) -> int:
        """Memories plus neighbour entries: what the snapshot holds."""
        return len(self.fields) + sum(len(found) for found in self.neighbours.values())

    def walk(
        self,
        seeds: Sequence[str],
        relevance: Mapping[str, float],
        two_hops: bool,
        limit: int,
        limit_two: int,
        keep: Iterable[str],
        min_value: float | None,
    ) -> Row:
        """The row of cypher/graph_walk.cypher for these parameters."""
        present = [seed for seed in seeds if seed in self.fields]
        first = list(_first(self._steps(sorted(present), None), limit))
        second: list[list[Any]] = []
        if two_hops:
            value: dict[str, float] = {}
            for step in first:
                reached = relevance[step[0]] * _valued(step[7])
                value[step[1]] = max(value.get(step[1], reached), reached)
            starts = sorted(set(value) - set(present))
            kept = set(keep)

            def passes(from_id: str, to_id: str, weight: Any) -> bool:
                return (
                    min_value is None
                    or to_id in kept
                    or value[from_id] * _valued(weight) >= min_value
                )

            second = list(_first(self._steps(starts, passes), limit_two))
        return {
            "seeds": [[seed, self.fields[seed][0]] for seed in present],
            "first": first,
            "second": second,
        }

    def neighbours_of(self, frontier: Iterable[str], limit: int) -> Row:
        """The row of cypher/graph_neighbors.cypher for these parameters."""
        starts = sorted({memory_id for memory_id in frontier if memory_id in self.fields})
        return {"neighbours": list(_first(self._steps(starts, None), limit))}

    def _steps(
        self, starts: Iterable[str], passes: Callable[[str, str, Any], bool] | None
    ) -> Iterator[list[Any]]:
        """Walk rows [from id, id, key, type, tags, score, created ms, weight, superseded]
        from each start in the order given, its neighbours by key."""
        for from_id in starts:
            for _, to_id, weight in self.neighbours.get(from_id, ()):
                if passes is None or passes(from_id, to_id, weight):
                    yield [from_id, to_id, *self.fields[to_id], weight, self.superseded[to_id]]


class LinkGraphs:
    """This process's link graph snapshots, at most `capacity` items (memories plus neighbour
    entries) in all, the least recently used dropped first; a namespace bigger than that is
    never held. `read(statement, **params)` runs a read statement in Neo4j."""

    def __init__(self, read: Read, capacity: int) -> None:
        self._read = read
        self.capacity = capacity
        self._graphs: OrderedDict[str, LinkGraph] = OrderedDict()
        self._loading: dict[str, asyncio.Task[None]] = {}
        self._next_load: dict[str, float] = {}
        self._too_big_until: dict[str, float] = {}
        self.counts = {"current": 0, "stale": 0, "loaded": 0, "discarded": 0}

    @property
    def held(self) -> int:
        """Items held, all namespaces together."""
        return sum(graph.size for graph in self._graphs.values())

    async def current(self, namespace: str) -> LinkGraph | None:
        """The namespace's snapshot when it is up to date (one version read); otherwise None,
        and a load starts in the background unless one ran lately."""
        if self.capacity <= 0 or time.monotonic() < self._too_big_until.get(namespace, 0.0):
            return None
        version, size = await self._version(namespace)
        graph = self._graphs.get(namespace)
        if graph is not None and graph.version == version:
            self._graphs.move_to_end(namespace)
            self.counts["current"] += 1
            return graph
        self.counts["stale"] += 1
        if size > self.capacity:
            self._too_big_until[namespace] = time.monotonic() + TOO_BIG_PAUSE_S
        elif namespace not in self._loading and time.monotonic() >= self._next_load.get(
            namespace, 0.0
        ):
            task = asyncio.create_task(self._load(namespace, version))
            self._loading[namespace] = task
            task.add_done_callback(lambda _: self._loading.pop(namespace, None))
        return None

    async def close(self) -> None:
        """Stop the loads in flight."""
        tasks = list(self._loading.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _version(self, namespace: str) -> tuple[int, int]:
        row = (await self._read("graph_version", namespace=namespace))[0]
        return row["version"], row["memories"] + 2 * row["links"]

    async def _load(self, namespace: str, version: int) -> None:
        """Load the snapshot between two version reads; keep it only if no graph write
        committed in between."""
        started = time.monotonic()
        try:
            memories = await self._read("link_graph_memories", namespace=namespace)
            links = await self._read("link_graph_links", namespace=namespace)
            after, _ = await self._version(namespace)
        except Exception as exc:  # the walk goes on in Neo4j; the next one tries again
            log.warning("link graph of %s not loaded: %s", namespace, exc)
            return
        finally:
            took = time.monotonic() - started
            pause = max(MIN_RELOAD_PAUSE_S, RELOAD_PAUSE_FACTOR * took)
            self._next_load[namespace] = time.monotonic() + pause
        if after != version:
            self.counts["discarded"] += 1
            return
        # Built beside the event loop: 92 ms for 10,000 memories and 37,969 links.
        graph = await asyncio.to_thread(
            LinkGraph.build, version, memories[0]["memories"], links[0]["links"]
        )
        self._graphs.pop(namespace, None)
        self._graphs[namespace] = graph
        self.counts["loaded"] += 1
        while self.held > self.capacity:
            self._graphs.popitem(last=False)
        log.debug("link graph of %s loaded: %d items in %.0f ms", namespace, graph.size, took * 1e3)


def _first(rows: Iterator[list[Any]], limit: int) -> Iterator[list[Any]]:
    for count, row in enumerate(rows):
        if count >= limit:
            return
        yield row


def _valued(weight: Any) -> float:
    return float(weight) if weight is not None else DEFAULT_WEIGHT


def _stronger(known: Any, weight: Any) -> Any:
    """Cypher's max() of two weights: a missing one never wins."""
    if known is None:
        return weight
    if weight is None:
        return known
    return max(known, weight)


def _by_key(neighbour: Neighbour) -> tuple[str, str]:
    return neighbour[0], neighbour[1]
