"""The points an embedded shard wrote or handed out last: each one's id, stored vector and
creation time, by the id object the engine hands back.

Qdrant Edge hands each vector to Python as a list of floats; for the 200 hits of a hybrid
search that conversion cost more than the search itself (docs/search.md). Asking the engine for
the hits' payloads, and turning its ids into strings, cost about as much as the search again
(docs/performance-parts.md): a search that finds its hits here asks for neither. The shard's
owner is the only writer (one owner per data folder), so a copy kept on write and dropped on
delete is never stale.
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from collections.abc import Iterable
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

Vector = npt.NDArray[np.float32]


class RecentPoint(NamedTuple):
    """A point's id (as `str` of the engine's id), stored vector and creation time (epoch ms)."""

    id: str
    vector: Vector | None
    created_at_ms: int | None


class RecentPoints:
    """Engine id (a `uuid.UUID`, as a hit's `id` reads) → RecentPoint, the `size` most
    recently written or read."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._points: OrderedDict[object, RecentPoint] = OrderedDict()

    def put(self, points: Iterable[RecentPoint]) -> None:
        for point in points:
            key = uuid.UUID(point.id)
            self._points[key] = point._replace(id=str(key))  # as the engine's id reads back
            self._points.move_to_end(key)
        while len(self._points) > self._size:
            self._points.popitem(last=False)

    def get(self, point_ids: Iterable[object]) -> list[RecentPoint | None]:
        """Each point, or None where not held; those held are marked as recently used."""
        points, touch = self._points, self._points.move_to_end
        found: list[RecentPoint | None] = []
        for point_id in point_ids:
            point = points.get(point_id)
            if point is not None:
                touch(point_id)
            found.append(point)
        return found

    def drop(self, ids: Iterable[str]) -> None:
        for point_id in ids:
            self._points.pop(uuid.UUID(point_id), None)

    def clear(self) -> None:
        self._points.clear()
