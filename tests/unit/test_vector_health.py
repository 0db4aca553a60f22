"""Honest readiness of the embedded vector engine: a failed write reopens the engine and is tried
once more; readiness fails while writes cannot be made to work (a fake engine: a pure unit)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt
import pytest

from service.errors import BackendUnavailable
from service.stores.vector_health import SelfHealingVectorStore
from service.stores.vector_store import IndexStatus, VectorFilter, VectorHit, VectorPoint


@dataclass
class FlakyEngine:
    """Writes fail while `broken` (reopening repairs that unless `reopen_repairs` is false);
    `check()` fails while a flush error is set, which a flush clears unless `flush_fails`."""

    engine: str = "fake"
    store_id: str = "fake-store"
    broken: bool = False
    reopen_repairs: bool = True
    open_fails: bool = False
    flush_error: str | None = None
    flush_fails: bool = False
    calls: list[str] = field(default_factory=list[str])
    points: dict[str, VectorPoint] = field(default_factory=dict[str, VectorPoint])

    async def open(self) -> None:
        self.calls.append("open")
        if self.open_fails:
            raise BackendUnavailable("qdrant", "cannot open")
        if self.reopen_repairs:
            self.broken = False

    async def close(self) -> None:
        self.calls.append("close")
        if self.broken:
            raise BackendUnavailable("qdrant", "flush failed on close")

    async def upsert(self, points: Sequence[VectorPoint]) -> None:
        self.calls.append("upsert")
        if self.broken:
            raise BackendUnavailable("qdrant", "Failed to flush payload_index")
        self.points.update((p.id, p) for p in points)

    async def delete(self, ids: Sequence[str]) -> None:
        self.calls.append("delete")
        if self.broken:
            raise BackendUnavailable("qdrant", "Failed to flush payload_index")
        for point_id in ids:
            self.points.pop(point_id, None)

    async def set_superseded(self, ids: Sequence[str], superseded: bool) -> None:
        self.calls.append("set_superseded")
        if self.broken:
            raise BackendUnavailable("qdrant", "Failed to flush payload_index")
        for point_id in ids:
            if point_id in self.points:
                self.points[point_id] = replace(self.points[point_id], superseded=superseded)

    async def vectors_of(self, ids: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        return {i: self.points[i].vector for i in ids if i in self.points}

    async def check(self) -> None:
        if self.open_fails:
            raise BackendUnavailable("qdrant", "not open")
        if self.flush_error is not None:
            raise BackendUnavailable("qdrant", f"flush failed: {self.flush_error}")

    async def flush(self) -> None:
        self.calls.append("flush")
        if self.flush_fails:
            raise BackendUnavailable("qdrant", "flush failed")
        self.flush_error = None

    async def search(
        self,
        vector: npt.NDArray[np.float32],
        flt: VectorFilter,
        limit: int,
        score_threshold: float | None = None,
        with_vectors: bool = False,
    ) -> list[VectorHit]:
        return []

    async def count(self, namespace: str | None = None, exact: bool = True) -> int:
        return len(self.points)

    async def existing_ids(self, ids: Sequence[str]) -> set[str]:
        return set(ids) & set(self.points)

    async def all_ids(self, batch: int = 1000) -> list[str]:
        return sorted(self.points)

    async def status(self) -> IndexStatus:
        return IndexStatus(points=len(self.points), indexed=0)


def point(point_id: str) -> VectorPoint:
    vector = np.zeros(4, dtype=np.float32)
    return VectorPoint(point_id, vector, "ns", "note", (), point_id, 0)


async def test_a_write_that_fails_is_retried_once_after_reopening_and_readiness_stays_ok() -> None:
    engine = FlakyEngine(broken=True)
    store = SelfHealingVectorStore(engine)
    await store.upsert([point("a")])
    assert engine.calls == ["upsert", "close", "open", "flush", "upsert"]
    assert sorted(engine.points) == ["a"]
    await store.check()


async def test_a_payload_flag_that_fails_is_retried_once_after_reopening() -> None:
    engine = FlakyEngine()
    store = SelfHealingVectorStore(engine)
    await store.upsert([point("a")])
    engine.broken = True
    await store.set_superseded(["a", "missing"], True)
    assert engine.calls == ["upsert", "set_superseded", "close", "open", "flush", "set_superseded"]
    assert engine.points["a"].superseded is True
    assert sorted(engine.points) == ["a"]


async def test_writes_that_fail_after_a_reopen_make_readiness_fail_until_a_write_succeeds() -> None:
    engine = FlakyEngine(broken=True, reopen_repairs=False)
    store = SelfHealingVectorStore(engine)
    with pytest.raises(BackendUnavailable):
        await store.delete(["a"])
    with pytest.raises(BackendUnavailable, match=r"the last write failed: .*payload_index"):
        await store.check()
    engine.broken = False
    await store.upsert([point("b")])
    await store.check()


async def test_readiness_reopens_an_engine_that_could_not_be_reopened_before() -> None:
    engine = FlakyEngine(broken=True, open_fails=True)
    store = SelfHealingVectorStore(engine)
    with pytest.raises(BackendUnavailable, match="reopening failed"):
        await store.upsert([point("a")])
    with pytest.raises(BackendUnavailable):
        await store.check()
    engine.open_fails = False
    await store.check()
    await store.upsert([point("a")])
    assert sorted(engine.points) == ["a"]


async def test_an_engine_whose_own_check_fails_is_reopened_by_the_readiness_check() -> None:
    engine = FlakyEngine(broken=True, flush_error="Tracker journal is shorter than expected")
    store = SelfHealingVectorStore(engine)
    await store.check()
    assert engine.calls == ["close", "open", "flush"]
    assert engine.flush_error is None


async def test_an_engine_that_stays_broken_after_reopening_is_not_ready() -> None:
    engine = FlakyEngine(flush_error="journal too short", flush_fails=True)
    store = SelfHealingVectorStore(engine)
    with pytest.raises(BackendUnavailable, match="could not be reopened"):
        await store.check()


async def test_reads_and_index_status_pass_through_unchanged() -> None:
    engine = FlakyEngine()
    store = SelfHealingVectorStore(engine)
    await store.upsert([point("a"), point("b")])
    assert store.engine == "fake"
    assert await store.count() == 2
    assert await store.existing_ids(["a", "z"]) == {"a"}
    assert await store.all_ids() == ["a", "b"]
    assert (await store.status()).points == 2
