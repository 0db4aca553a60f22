"""retrieve_context's memory views held between retrieves, each valid at the namespace graph
version it was read at.

Hydrating the 10 memories a retrieve returns cost about a fifth of its CPU, the service's and
Neo4j's together (docs/performance-parts.md). The graph version (NamespaceStats) moves with
every write of a memory, a link or a supersession, which is all a retrieve's view shows, so a
view read after a retrieve saw version V is never older than V: served to a retrieve that saw V
too, it is what Neo4j would answer. The views are shared between retrieves, never changed.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Mapping

from service.core.results import MemoryView

# Python memory of a view beyond its texts, and of each link beyond its key and summary (the
# objects' sys.getsizeof, summed over views of 250-character texts with 0, 4 and 20 links).
VIEW_BYTES = 1_150
LINK_BYTES = 450


class ViewCache:
    """(namespace, memory id, links sorted or not) → the view and the graph version it was
    read at, least recently used first, within `budget` bytes (estimated)."""

    def __init__(self, budget: int) -> None:
        self._budget = budget
        self._used = 0
        self.counts = {"held": 0, "read": 0}  # views asked for since the start, by outcome
        self._views: OrderedDict[tuple[str, str, bool], tuple[Hashable, MemoryView, int]] = (
            OrderedDict()
        )

    def get(
        self, namespace: str, version: Hashable, ids: Iterable[str], sort: bool
    ) -> dict[str, MemoryView]:
        """The views of `ids` held at `version` (others are left out, to be read)."""
        views, touch = self._views, self._views.move_to_end
        found: dict[str, MemoryView] = {}
        asked = 0
        for memory_id in ids:
            asked += 1
            key = (namespace, memory_id, sort)
            held = views.get(key)
            if held is not None and held[0] == version:
                touch(key)
                found[memory_id] = held[1]
        self.counts["held"] += len(found)
        self.counts["read"] += asked - len(found)
        return found

    def put(
        self, namespace: str, version: Hashable, views: Mapping[str, MemoryView], sort: bool
    ) -> None:
        """Hold `views`, read after a graph version read that gave `version`; a view bigger
        than the whole budget is not held."""
        for memory_id, view in views.items():
            size = view_bytes(view)
            if size > self._budget:
                continue
            key = (namespace, memory_id, sort)
            replaced = self._views.pop(key, None)
            if replaced is not None:
                self._used -= replaced[2]
            self._views[key] = (version, view, size)
            self._used += size
        while self._used > self._budget:
            self._used -= self._views.popitem(last=False)[1][2]

    @property
    def used(self) -> int:
        """Bytes held, as estimated."""
        return self._used


def view_bytes(view: MemoryView) -> int:
    """About what a view holds in Python memory: its texts and the fixed cost of its parts."""
    texts = len(view["content"]) + len(view["title"]) + len(view["summary"]) + len(view["key"])
    metadata = len(json.dumps(view["metadata"])) if view["metadata"] else 0
    links = sum(
        LINK_BYTES + len(link["key"]) + len(link["summary"] or "") for link in view["links"]
    )
    return VIEW_BYTES + texts + metadata + sum(map(len, view["tags"])) + links
