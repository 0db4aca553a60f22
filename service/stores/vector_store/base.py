"""The `VectorStore` protocol and the engine-neutral types both engines share:
points, filters, hits and index status."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

import numpy as np
import numpy.typing as npt

from service.filters import Conditions, Equals, MemoryFilters, filter_fields

VECTOR_NAME = "dense"
# Payload fields with an index; `namespace` is the tenant key.
KEYWORD_FIELDS = ("namespace", "type", "tags", "key")
INTEGER_FIELDS = ("created_at", "superseded")
FLOAT_FIELDS = ("score",)


@dataclass(frozen=True)
class VectorPoint:
    """One memory's vector and the payload used for filtering."""

    id: str
    vector: npt.NDArray[np.float32]
    namespace: str
    type: str
    tags: tuple[str, ...]
    key: str
    created_at_ms: int
    score: float | None = None
    superseded: bool = False

    def payload(self) -> dict[str, Any]:
        """The namespace, the key and the fields the filters read (service/filters.py)."""
        return {
            "namespace": self.namespace,
            "key": self.key,
            **filter_fields(self.type, self.tags, self.created_at_ms, self.score, self.superseded),
        }


@dataclass(frozen=True)
class VectorFilter:
    """Filters pushed into the engine: the namespace always, and the memory filters."""

    namespace: str
    memory: MemoryFilters = field(default_factory=MemoryFilters)

    def conditions(self) -> Conditions:
        """The payload conditions each engine builds its filter from."""
        memory = self.memory.conditions
        return Conditions((Equals("namespace", self.namespace), *memory.must), memory.must_not)


class VectorHit(NamedTuple):
    """A search hit; `vector` is the stored vector when the search asked for it (a tuple: a
    search makes hundreds)."""

    id: str
    score: float
    created_at_ms: int | None = None
    vector: npt.NDArray[np.float32] | None = None


@dataclass
class IndexStatus:
    points: int
    indexed: int
    details: dict[str, Any] = field(default_factory=dict[str, Any])


class VectorStore(Protocol):
    """What the service needs from a vector engine."""

    engine: str

    @property
    def store_id(self) -> str:
        """Names the storage the vectors live in, the same for every process that writes to it
        (a Qdrant server's collection, an embedded folder); known once `open()` returned."""
        ...

    async def open(self) -> None: ...

    async def close(self) -> None: ...

    async def upsert(self, points: Sequence[VectorPoint]) -> None: ...

    async def delete(self, ids: Sequence[str]) -> None: ...

    async def set_superseded(self, ids: Sequence[str], superseded: bool) -> None:
        """Set the `superseded` payload flag of the points that exist among `ids`."""
        ...

    async def search(
        self,
        vector: npt.NDArray[np.float32],
        flt: VectorFilter,
        limit: int,
        score_threshold: float | None = None,
        with_vectors: bool = False,
    ) -> list[VectorHit]:
        """Nearest points by cosine, best first; `with_vectors` brings their stored vectors."""
        ...

    async def count(self, namespace: str | None = None, exact: bool = True) -> int:
        """Points (of a namespace); `exact` False: the engine's payload-index figure, without
        reading the points (exact once the namespace's writes are applied, but not promised
        while segments are being optimized)."""
        ...

    async def existing_ids(self, ids: Sequence[str]) -> set[str]: ...

    async def vectors_of(self, ids: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        """The stored vectors of the points that exist among `ids`."""
        ...

    async def all_ids(self, batch: int = 1000) -> list[str]: ...

    async def status(self) -> IndexStatus: ...

    async def check(self) -> None: ...


def collection_name(model: str) -> str:
    """One collection per embedding model: `memories__<model>` with a safe model slug."""
    slug = "".join(ch if ch.isalnum() else "_" for ch in model.lower()).strip("_")
    return f"memories__{slug}"


def dense(vectors: Any) -> npt.NDArray[np.float32] | None:
    """The dense vector of a point's named vectors (`{name: list[float]}`), if it has one."""
    if isinstance(vectors, dict) and VECTOR_NAME in vectors:
        return np.asarray(vectors[VECTOR_NAME], dtype=np.float32)
    return None


def created_at_ms(payload: dict[str, Any] | None) -> int | None:
    """The payload's creation time (epoch ms), when it has one."""
    value = (payload or {}).get("created_at")
    return int(value) if value is not None else None
