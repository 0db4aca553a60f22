"""The graph walk in process: a namespace's memories (their walk fields) and LINK edges held
as a snapshot, answering `graph_walk` and `graph_neighbors` with the rows Neo4j would return,
and advanced by a write of this process (`GraphWrite`) to what a load after it would read.
Which snapshots a process holds, and when they serve: service/stores/link_graphs.py.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import reduce
from typing import Any

from service.stores.layered_map import LayeredMap

DEFAULT_WEIGHT = 0.5  # a link stored without a weight, as the walk statements value it
Row = dict[str, Any]
# key, id, strongest link weight (None: no weight stored), that weight's value in the walk
Neighbour = tuple[str, str, Any, float]
_LINEAGES = itertools.count()


@dataclass(frozen=True)
class GraphWrite:
    """What one transaction wrote to a namespace's graph, as its statements returned it: the
    graph version it started from (read under the namespace's lock) and the one it left; the
    memory it wrote, as `link_graph_memories` reads it; the source of the links it wrote and,
    for each target, the weights of every link between the two."""

    before: tuple[Any, ...]
    after: tuple[Any, ...]
    memory: Sequence[Any] | None = None
    source: str | None = None
    pairs: Sequence[tuple[str, Sequence[Any]]] = ()

    @classmethod
    def of_links(cls, row: Row, source: str) -> GraphWrite:
        """The write of a `link_upsert` row, whose links go from `source`."""
        pairs = [(target, weights) for target, weights in row["pairs"]]
        return cls(
            tuple(row["graph_version_before"]), tuple(row["graph_version"]), None, source, pairs
        )

    def then(self, later: GraphWrite) -> GraphWrite | None:
        """This write and a later one of the same transaction as one (a memory, then its
        links); None if the later one did not start where this one left the graph."""
        if later.before != self.after:
            return None
        memory = later.memory if later.memory is not None else self.memory
        return GraphWrite(self.before, later.after, memory, later.source, later.pairs)


@dataclass(frozen=True)
class LinkGraph:
    """One namespace's link graph at `version`: each memory's walk fields ([key, type, tags,
    score, created ms]), whether it is superseded, and its neighbours over LINK in either
    direction ordered by key, each with the strongest weight of the links between the two.

    A loaded snapshot starts a lineage; each snapshot advanced from it (`advanced`) is one step
    further (`step`), and `touched` tells, for the lineage, the last step at which each memory
    or a neighbour of it was written: what the views held between retrieves are checked with."""

    version: tuple[Any, ...]
    fields: LayeredMap[str, tuple[Any, ...]]
    superseded: LayeredMap[str, bool]
    neighbours: LayeredMap[str, Sequence[Neighbour]]
    size: int  # memories plus neighbour entries: what the snapshot holds
    lineage: int = field(default_factory=lambda: next(_LINEAGES))
    step: int = 0
    touched: dict[str, int] = field(default_factory=dict[str, int], repr=False, compare=False)

    @classmethod
    def build(
        cls,
        version: tuple[Any, ...],
        memories: Iterable[Sequence[Any]],
        links: Iterable[Sequence[Any]],
    ) -> LinkGraph:
        """From the rows of `link_graph_memories` ([id, key, type, tags, score, created ms,
        superseded]) and `link_graph_links` ([from id, to id, weight])."""
        fields: dict[str, tuple[Any, ...]] = {}
        superseded: dict[str, bool] = {}
        for memory_id, *walk_fields, is_superseded in memories:
            fields[memory_id] = tuple(walk_fields)
            superseded[memory_id] = bool(is_superseded)
        # A link's ends as the memories' own id strings: later lookups compare them by identity.
        same_id = {memory_id: memory_id for memory_id in fields}
        strongest: dict[str, dict[str, Any]] = {}
        for link_source, link_target, weight in links:
            source, target = same_id.get(link_source), same_id.get(link_target)
            if source is None or target is None:
                continue
            for one, other in ((source, target), (target, source)):
                known = strongest.setdefault(one, {})
                known[other] = _stronger(known[other], weight) if other in known else weight
        neighbours: dict[str, Sequence[Neighbour]] = {
            memory_id: sorted(
                ((fields[n][0], n, w, _valued(w)) for n, w in found.items()), key=_by_key
            )
            for memory_id, found in strongest.items()
        }
        size = len(fields) + sum(len(found) for found in neighbours.values())
        return cls(
            version, LayeredMap(fields), LayeredMap(superseded), LayeredMap(neighbours), size
        )

    def advanced(self, write: GraphWrite) -> LinkGraph | None:
        """This snapshot with `write` applied, as a load at `write.after` would read it; None
        when the write names a memory the snapshot does not hold. It shares this snapshot's maps
        (`LayeredMap`); only the neighbour lists the write changed are built again (a memory's,
        its targets', and, when its key changed, its neighbours', which are ordered by key)."""
        fields, superseded = self.fields, self.superseded
        rebuilt: set[str] = set()
        touched: set[str] = set()
        if write.memory is not None:
            memory_id, *walk_fields, is_superseded = write.memory
            before = fields.get(memory_id)
            fields = fields.updated({memory_id: tuple(walk_fields)})
            superseded = superseded.updated({memory_id: bool(is_superseded)})
            around = {n for _, n, *_ in self.neighbours.get(memory_id, ())}
            touched |= {memory_id, *around}
            if before is not None and before[0] != walk_fields[0]:
                rebuilt |= around
        weights = self._linked(write, fields)
        if weights is None:
            return None
        touched |= weights.keys()
        changed: dict[str, list[Neighbour]] = {}
        size = self.size + len(fields) - len(self.fields)
        for memory_id in rebuilt | weights.keys():
            known = weights[memory_id] if memory_id in weights else self._weights_of(memory_id)
            size += len(known) - len(self.neighbours.get(memory_id, ()))
            listed = ((fields[n][0], n, w, _valued(w)) for n, w in known.items())
            changed[memory_id] = sorted(listed, key=_by_key)
        step = self.step + 1
        self.touched.update(dict.fromkeys(touched, step))
        neighbours = self.neighbours.updated(changed)
        return LinkGraph(
            write.after, fields, superseded, neighbours, size, self.lineage, step, self.touched
        )

    def _linked(
        self, write: GraphWrite, fields: Mapping[str, Any]
    ) -> dict[str, dict[str, Any]] | None:
        """The link ends of `write`, each with its neighbours' strongest weights after it (the
        links a save or a link writes are created or reweighted, never removed); None if an end
        is not in `fields`."""
        weights: dict[str, dict[str, Any]] = {}
        source = write.source
        for target, found in write.pairs:
            if source is None or source not in fields or target not in fields:
                return None
            strongest = reduce(_stronger, found, None)  # found: at least the link just written
            for one, other in ((source, target), (target, source)):
                weights.setdefault(one, self._weights_of(one))[other] = strongest
        return weights

    def _weights_of(self, memory_id: str) -> dict[str, Any]:
        return {n: w for _, n, w, _ in self.neighbours.get(memory_id, ())}

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
        first = self._steps(sorted(present), limit)
        second: list[list[Any]] = []
        if two_hops:
            value: dict[str, float] = {}
            for step in first:
                reached = relevance[step[0]] * _valued(step[7])
                value[step[1]] = max(value.get(step[1], reached), reached)
            starts = sorted(set(value) - set(present))
            if min_value is None:
                second = self._steps(starts, limit_two)
            else:
                second = self._steps(starts, limit_two, value, set(keep), min_value)
        return {
            "seeds": [[seed, self.fields[seed][0]] for seed in present],
            "first": first,
            "second": second,
        }

    def neighbours_of(self, frontier: Iterable[str], limit: int) -> Row:
        """The row of cypher/graph_neighbors.cypher for these parameters."""
        starts = sorted({memory_id for memory_id in frontier if memory_id in self.fields})
        return {"neighbours": self._steps(starts, limit)}

    def _steps(
        self,
        starts: Iterable[str],
        limit: int,
        value: Mapping[str, float] | None = None,
        keep: AbstractSet[str] = frozenset(),
        min_value: float = 0.0,
    ) -> list[list[Any]]:
        """The first `limit` walk rows [from id, id, key, type, tags, score, created ms, weight,
        superseded] from each start in the order given, its neighbours by key; with `value`
        (the starts' path values), only the links to a memory in `keep` or worth `min_value`
        (path value × link weight)."""
        fields, superseded, neighbours = self.fields, self.superseded, self.neighbours
        rows: list[list[Any]] = []
        if limit <= 0:
            return rows
        for from_id in starts:
            start_value = value[from_id] if value is not None else 0.0
            for _, to_id, weight, valued in neighbours.get(from_id, ()):
                if value is not None and to_id not in keep and start_value * valued < min_value:
                    continue
                rows.append([from_id, to_id, *fields[to_id], weight, superseded[to_id]])
                if len(rows) == limit:
                    return rows
        return rows


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
