"""Which link graph snapshots (service/stores/link_graph.py) a process holds, and when they
serve a walk.

A snapshot is used only while the namespace's `graph_version` (NamespaceStats, moved by every
statement that changes a memory's walk fields or a link) equals the one it was loaded at, so
every writer, in this process or another, makes it stale; a stale one is loaded again in the
background and the walk meanwhile runs in Neo4j. A save or a link of this process advances the
snapshot instead, with what its statements returned, when it started from the snapshot's version
(or, during a load, from the loaded one); a retrieve that read the version just before such a
write walks the step before it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from service.stores.link_graph import GraphWrite, LinkGraph, Row

log = logging.getLogger(__name__)

MIN_RELOAD_PAUSE_S = 0.5
RELOAD_PAUSE_FACTOR = 10  # a namespace is loaded again at most once per 10x its last load time
TOO_BIG_PAUSE_S = 60.0  # a namespace too big to hold is looked at again after this long
MAX_BACKOFF = 64  # a namespace whose snapshots go stale unused waits up to 64x longer to load
MAX_NAMESPACES_KNOWN = 4096
MAX_WRITES_WHILE_LOADING = 1024  # writes kept for a load in flight to advance its snapshot by
MAX_VERSIONS_PASSED = 64  # a retrieve that read one of these is behind, not stale
Probe = Callable[..., Awaitable[list[Row]]]
ReadTogether = Callable[[Sequence[tuple[str, Mapping[str, Any]]]], Awaitable[list[list[Row]]]]


@dataclass
class _Namespace:
    """What the store knows of one namespace's snapshot: when it may load again, how much
    longer than usual it waits (doubled each time a load was wasted), and until when it is too
    big to hold; the step before the snapshot and the versions its writes advanced it past; the
    writes that committed while a load was in flight."""

    next_load: float = 0.0
    backoff: int = 1
    too_big_until: float = 0.0
    used: bool = False
    previous: LinkGraph | None = None
    passed: deque[tuple[Any, ...]] = field(
        default_factory=lambda: deque[tuple[Any, ...]](maxlen=MAX_VERSIONS_PASSED)
    )
    writes: list[GraphWrite] = field(default_factory=list[GraphWrite])


class LinkGraphs:
    """This process's link graph snapshots, at most `capacity` items (memories plus neighbour
    entries) in all, the least recently used dropped first; a namespace bigger than that is
    never held. `probe(statement, **params)` runs a read once (no retries: it only saves time);
    `read_together([(statement, params), ...])` runs reads in one transaction (one cluster
    member answers them all)."""

    def __init__(self, probe: Probe, read_together: ReadTogether, capacity: int) -> None:
        self._probe = probe
        self._read_together = read_together
        self.capacity = capacity
        self.held = 0
        self._graphs: OrderedDict[str, LinkGraph] = OrderedDict()
        self._items: dict[str, int] = {}  # what each snapshot held counts towards the capacity
        self._loading: dict[str, asyncio.Task[None]] = {}
        self._namespaces: dict[str, _Namespace] = {}
        self.counts = {"current": 0, "stale": 0, "loaded": 0, "discarded": 0, "advanced": 0}

    async def current(self, namespace: str) -> LinkGraph | None:
        """The namespace's snapshot when it is up to date (one version read); otherwise None,
        and a load starts in the background unless one ran lately."""
        if not self.wanted(namespace):
            return None
        return self.at(namespace, (await self._probe("graph_version", namespace=namespace))[0])

    def wanted(self, namespace: str) -> bool:
        """Whether a snapshot of the namespace may serve (snapshots on, the namespace not known
        to be too big): worth reading its version."""
        state = self._namespaces.get(namespace)
        too_big = state is not None and time.monotonic() < state.too_big_until
        return self.capacity > 0 and not too_big

    def at(self, namespace: str, version_row: Row) -> LinkGraph | None:
        """The namespace's snapshot when it is at the version of `version_row` (a graph_version
        row, read just now); otherwise None, and a load starts in the background unless one ran
        lately."""
        if not self.wanted(namespace):
            return None
        state = self._namespaces.setdefault(namespace, _Namespace())
        version, size = _version(version_row)
        graph = self._graphs.get(namespace)
        if graph is not None and graph.version == version:
            self._graphs.move_to_end(namespace)
            self.counts["current"] += 1
            state.used = True
            return graph
        if graph is not None and version in state.passed:  # read before a write of this process
            behind = (
                state.previous if state.previous and state.previous.version == version else None
            )
            self.counts["current" if behind else "stale"] += 1
            return behind
        self.counts["stale"] += 1
        if size > self.capacity:
            state.too_big_until = time.monotonic() + TOO_BIG_PAUSE_S
            self._drop(namespace)
        elif namespace not in self._loading and time.monotonic() >= state.next_load:
            if graph is not None:  # a snapshot no walk used before it went stale was wasted
                state.backoff = 1 if state.used else min(2 * state.backoff, MAX_BACKOFF)
                self._drop(namespace)
            task = asyncio.create_task(self._load(namespace, state))
            self._loading[namespace] = task
            task.add_done_callback(lambda _: self._loading.pop(namespace, None))
        self._forget_idle()
        return None

    def advance(self, namespace: str, write: GraphWrite) -> None:
        """After `write` committed: the namespace's snapshot advanced by it when the write
        started from the snapshot's version (no other write came between); kept for the
        snapshot a load in flight brings; otherwise the snapshot stays as it is, stale, and
        loads again as usual."""
        state = self._namespaces.get(namespace)
        if state is None:
            return
        if namespace in self._loading:
            state.writes = [*state.writes[1 - MAX_WRITES_WHILE_LOADING :], write]
            return
        graph = self._graphs.get(namespace)
        if graph is not None and graph.version == write.before:
            self._hold(namespace, self._advanced(namespace, graph, [write]))

    def _advanced(self, namespace: str, graph: LinkGraph, writes: list[GraphWrite]) -> LinkGraph:
        """`graph` advanced by each of `writes` that starts where the graph then is, in turn
        (the step before it and the versions passed noted); as it is if a write fails to
        apply, which is logged: the version then moves past it, and it is loaded again."""
        state = self._namespaces[namespace]
        for write in writes:
            if write.before != graph.version:
                continue
            try:
                advanced = graph.advanced(write)
            except Exception:  # a write is committed whatever its snapshot: never fail it
                log.warning("link graph of %s not advanced", namespace, exc_info=True)
                return graph
            if advanced is None:
                return graph
            state.previous = graph
            state.passed.append(graph.version)
            self.counts["advanced"] += 1
            graph = advanced
        return graph

    def _hold(self, namespace: str, graph: LinkGraph) -> None:
        """Hold `graph` as the namespace's snapshot, within the capacity: its items and the
        memories its lineage's writes touched (`LinkGraph.touched`, freed at the next load)."""
        items = graph.size + len(graph.touched)
        self.held += items - self._items.get(namespace, 0)
        self._graphs.pop(namespace, None)
        self._graphs[namespace] = graph
        self._items[namespace] = items
        while self.held > self.capacity:
            self._drop(next(iter(self._graphs)))

    async def close(self) -> None:
        """Stop the loads in flight."""
        tasks = list(self._loading.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _load(self, namespace: str, state: _Namespace) -> None:
        """Load the snapshot between two version reads in one transaction; keep it only if no
        graph write committed in between."""
        started = time.monotonic()
        scope = {"namespace": namespace}
        try:
            before, memories, links, after = await self._read_together(
                [
                    ("graph_version", scope),
                    ("link_graph_memories", scope),
                    ("link_graph_links", scope),
                    ("graph_version", scope),
                ]
            )
            version = _version(before[0])[0]
            graph = None
            if _version(after[0])[0] == version:
                # Built beside the event loop: 92 ms for 10,000 memories and 37,969 links.
                graph = await asyncio.to_thread(
                    LinkGraph.build, version, memories[0]["memories"], links[0]["links"]
                )
        except Exception as exc:  # the walk goes on in Neo4j; a later one tries again
            log.warning("link graph of %s not loaded: %s", namespace, exc)
            graph = None
        took = time.monotonic() - started
        writes, state.writes = state.writes, []
        if graph is None:
            self.counts["discarded"] += 1
            state.backoff = min(2 * state.backoff, MAX_BACKOFF)
        else:
            self._drop(namespace)
            self.counts["loaded"] += 1
            state.used = False
            self._hold(namespace, self._advanced(namespace, graph, writes))
            log.debug("link graph of %s: %d items in %.0f ms", namespace, graph.size, took * 1e3)
        pause = max(MIN_RELOAD_PAUSE_S, RELOAD_PAUSE_FACTOR * took) * state.backoff
        state.next_load = time.monotonic() + pause

    def _drop(self, namespace: str) -> None:
        self._graphs.pop(namespace, None)
        self.held -= self._items.pop(namespace, 0)
        state = self._namespaces.get(namespace)
        if state is not None:
            state.previous = None
            state.passed.clear()

    def _forget_idle(self) -> None:
        """Forget namespaces that hold no snapshot and wait for nothing, once many are known."""
        if len(self._namespaces) <= MAX_NAMESPACES_KNOWN:
            return
        now = time.monotonic()
        for namespace, state in list(self._namespaces.items()):
            idle = now >= state.next_load and now >= state.too_big_until
            if idle and namespace not in self._graphs and namespace not in self._loading:
                del self._namespaces[namespace]


def _version(row: Row) -> tuple[tuple[Any, ...], int]:
    """A namespace's graph version (its token, and its counters, which writers that never move
    the token still change) and the size of a snapshot of it."""
    counters = (row["memories"], row["links"], row["size_bytes"])
    return (row["version"], *counters), row["memories"] + 2 * row["links"]
