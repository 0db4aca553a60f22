"""The bookkeeping of the graph walk: breadth-first from seeds ordered strongest first, each
memory with its shortest path from the nearest seed, and each seed that a stronger seed reaches
with that path as its own graph evidence (docs/contract.md §5)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

DEFAULT_WEIGHT = 0.5  # a link stored without a weight


@dataclass(slots=True)
class Reached:
    """A memory the graph walk reached: shortest hop count, its path of keys from the seed
    (`origin`), the best seed relevance × link weights over paths of that length, and filter
    fields."""

    hops: int
    path: list[str]
    path_value: float
    brief: dict[str, Any]
    origin: str


class Walk:
    """What a breadth-first walk reached so far. `seeds` maps each seed's id to its relevance,
    strongest first: a seed is stronger than every seed after it."""

    def __init__(
        self, seeds: Mapping[str, float], keys: Mapping[str, str], budget: int, max_hops: int
    ) -> None:
        self.rank = {seed_id: index for index, seed_id in enumerate(seeds)}
        self.reached = {
            seed_id: Reached(0, [keys[seed_id]], seeds[seed_id], {}, seed_id)
            for seed_id in seeds
            if seed_id in keys
        }
        self.evidence: dict[str, Reached] = {}
        self.budget = budget
        self.max_hops = max_hops
        self._seed_links: list[tuple[str, str, str, float, dict[str, Any]]] = []

    def step(self, neighbours: Sequence[Sequence[Any]], hop: int) -> list[str]:
        """Add the neighbours first reached at `hop` (keeping the best path value among equally
        short paths) and the evidence of seeds reached from stronger ones; returns the next
        frontier. Each neighbour is [from id, id, key, type, tags, score, created ms, weight,
        superseded]."""
        frontier: list[str] = []
        reached, budget = self.reached, self.budget
        for row in neighbours:
            from_id, memory_id, key, weight = row[0], row[1], row[2], row[7]
            parent = reached[from_id]
            link = float(weight if weight is not None else DEFAULT_WEIGHT)
            value = parent.path_value * link
            known = reached.get(memory_id)
            if known is None:
                if len(reached) < budget:
                    path = [*parent.path, key]
                    reached[memory_id] = Reached(hop, path, value, _brief(row), parent.origin)
                    frontier.append(memory_id)
            elif known.hops == hop and value > known.path_value:
                known.path_value, known.path = value, [*parent.path, key]
                known.origin = parent.origin
            elif known.hops == 0 and parent.hops == 0:  # between two seeds: see results()
                self._seed_links.append((from_id, memory_id, key, link, _brief(row)))
            elif known.hops == 0 and self._stronger(parent.origin, memory_id):
                path = [*parent.path, key]
                self._add_evidence(memory_id, Reached(hop, path, value, _brief(row), parent.origin))
        return frontier

    def results(self) -> dict[str, Reached]:
        """Every memory reached at hop >= 1, and every seed a stronger seed reached (by that
        path, which may pass through weaker seeds)."""
        self._through_seeds()
        found = {i: r for i, r in self.reached.items() if r.hops >= 1}
        return {**found, **self.evidence}

    def _through_seeds(self) -> None:
        """Extend the seeds' evidence over the links between seeds until nothing improves: a
        seed one link from a stronger seed, or from a seed that a stronger one reaches."""
        improved = True
        while improved:
            improved = False
            for from_id, to_id, key, weight, brief in self._seed_links:
                for start in (self.reached[from_id], self.evidence.get(from_id)):
                    if start is None or start.hops >= self.max_hops:
                        continue
                    if not self._stronger(start.origin, to_id):
                        continue
                    path, value = [*start.path, key], start.path_value * weight
                    found = Reached(start.hops + 1, path, value, brief, start.origin)
                    improved = self._add_evidence(to_id, found) or improved

    def _stronger(self, seed_id: str, than: str) -> bool:
        return self.rank[seed_id] < self.rank[than]

    def _add_evidence(self, seed_id: str, found: Reached) -> bool:
        """Keep the shortest path from a stronger seed, the best valued among equally short
        ones; whether `found` is now kept."""
        known = self.evidence.get(seed_id)
        if known is None or (found.hops, -found.path_value) < (known.hops, -known.path_value):
            self.evidence[seed_id] = found
            return True
        return False


def _brief(row: Sequence[Any]) -> dict[str, Any]:
    """The filter fields of a walk row."""
    return {
        "type": row[3],
        "tags": row[4],
        "score": row[5],
        "created_ms": row[6],
        "superseded": row[8],
    }
