"""The memory views held between reads (retrieve_context, and memory_search and
memory_fulltext_search when their keyword statement read the graph version), each valid at the
link graph snapshot it was read at and at the snapshots advanced from it that did not touch it.

Hydrating the 10 memories a retrieve returns cost about a fifth of its CPU, the service's and
Neo4j's together (docs/performance-parts.md). The graph version (NamespaceStats) moves with
every write of a memory, a link or a supersession, which is all a retrieve's view shows, so a
view read after a retrieve saw the version of snapshot S is never older than S: served to a
retrieve that saw S too, it is what Neo4j would answer. A save or a link of this process
advances the snapshot (service/stores/link_graph.py) and says which memories it touched (the
memory, its link ends and its neighbours, whose views show its key, score and summary): the
others' views stay valid. Views are handed out as they are held: readers copy what they pass on
(service/core/read/context.py).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping
from sys import getsizeof
from typing import Any

from service.core.results import LinkView, MemoryView
from service.stores.link_graph import LinkGraph

# Python memory of a view's containers and scalars, and of each link's, beyond their strings:
# against sys.getsizeof over views of 0, 4 and 20 links and texts of 250 characters the
# estimate reads 2-5% above, and more where views share strings (a third above with emoji and
# the same metadata keys in each).
VIEW_BYTES = 780
LINK_BYTES = 330


class ViewCache:
    """(namespace, memory id, links sorted or not) → the view and the snapshot it was read at
    (its lineage and step), least recently used first, within `budget` bytes (estimated)."""

    def __init__(self, budget: int) -> None:
        self._budget = budget
        self._used = 0
        self._views: OrderedDict[tuple[str, str, bool], tuple[int, int, MemoryView, int]] = (
            OrderedDict()
        )
        self.counts = {"held": 0, "read": 0}  # views asked for since the start, by outcome

    def get(
        self, namespace: str, graph: LinkGraph | None, ids: Iterable[str], sort: bool
    ) -> dict[str, MemoryView]:
        """The views of `ids` still valid at `graph`, the namespace's snapshot current at the
        version the retrieve read (others are left out, to be read; all of them without one)."""
        views, touch = self._views, self._views.move_to_end
        found: dict[str, MemoryView] = {}
        asked = 0
        for memory_id in ids:
            asked += 1
            key = (namespace, memory_id, sort)
            held = views.get(key)
            if graph is not None and held is not None and _valid(held, memory_id, graph):
                touch(key)
                found[memory_id] = held[2]
        self.counts["held"] += len(found)
        self.counts["read"] += asked - len(found)
        return found

    def put(
        self, namespace: str, graph: LinkGraph | None, views: Mapping[str, MemoryView], sort: bool
    ) -> None:
        """Hold `views`, read after a graph version read that `graph` was current at (none held
        without one); a view bigger than the whole budget is not held."""
        if graph is None:
            return
        for memory_id, view in views.items():
            key = (namespace, memory_id, sort)
            replaced = self._views.pop(key, None)
            if replaced is not None:
                self._used -= replaced[3]
            size = view_bytes(view)
            if size <= self._budget:
                self._views[key] = (graph.lineage, graph.step, view, size)
                self._used += size
        while self._used > self._budget:
            self._used -= self._views.popitem(last=False)[1][3]

    @property
    def used(self) -> int:
        """Bytes held, as estimated."""
        return self._used


def _valid(held: tuple[int, int, MemoryView, int], memory_id: str, graph: LinkGraph) -> bool:
    """Whether a view held at step `held[1]` of lineage `held[0]` still shows what `graph`
    holds: the same lineage, and no write touched the memory after that step."""
    return held[0] == graph.lineage and graph.touched.get(memory_id, -1) <= held[1]


def view_bytes(view: MemoryView) -> int:
    """About what a view holds in Python memory: its strings as Python stores them (1, 2 or 4
    bytes a character), its metadata whole, and the fixed cost of its other parts."""
    strings = sum(map(getsizeof, (view["key"], view["title"], view["summary"], view["content"])))
    lists = sum(map(getsizeof, view["tags"])) + sum(map(getsizeof, view["supersedes"]))
    links = sum(
        LINK_BYTES + getsizeof(link["key"]) + getsizeof(link["summary"] or "")
        for link in view["links"]
    )
    return VIEW_BYTES + strings + lists + deep_size(view["metadata"]) + links


def deep_size(value: Any) -> int:
    """sys.getsizeof of a JSON value and of everything it holds."""
    if isinstance(value, dict):
        items: dict[Any, Any] = value  # pyright: ignore[reportUnknownVariableType]
        return getsizeof(items) + sum(deep_size(k) + deep_size(v) for k, v in items.items())
    if isinstance(value, list):
        elements: list[Any] = value  # pyright: ignore[reportUnknownVariableType]
        return getsizeof(elements) + sum(map(deep_size, elements))
    return getsizeof(value)


def links_of(view: MemoryView) -> list[LinkView]:
    """A copy of a view's links, for a result: the view may be held for later reads."""
    return [LinkView(**link) for link in view["links"]]
