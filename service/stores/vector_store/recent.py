"""The stored vectors of the points an embedded shard wrote or handed out last, by id.

Qdrant Edge hands each vector to Python as a list of floats; for the 200 hits of a hybrid
search that conversion cost more than the search itself (docs/search.md). The shard's owner is
the only writer (one owner per data folder), so a copy kept on write and dropped on delete is
never stale.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

Vector = npt.NDArray[np.float32]


class RecentVectors:
    """Point id → stored vector, the `size` most recently written or read."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._vectors: OrderedDict[str, Vector] = OrderedDict()

    def put(self, vectors: Iterable[tuple[str, Vector]]) -> None:
        for point_id, vector in vectors:
            self._vectors[point_id] = vector
            self._vectors.move_to_end(point_id)
        while len(self._vectors) > self._size:
            self._vectors.popitem(last=False)

    def get(self, ids: Sequence[str]) -> dict[str, Vector]:
        """The vectors held among `ids` (each marked as recently used)."""
        found: dict[str, Vector] = {}
        for point_id in ids:
            vector = self._vectors.get(point_id)
            if vector is not None:
                self._vectors.move_to_end(point_id)
                found[point_id] = vector
        return found

    def drop(self, ids: Iterable[str]) -> None:
        for point_id in ids:
            self._vectors.pop(point_id, None)

    def clear(self) -> None:
        self._vectors.clear()
