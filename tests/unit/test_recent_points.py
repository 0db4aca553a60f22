"""The recent points an embedded shard keeps in memory."""

from __future__ import annotations

import uuid

import numpy as np

from service.stores.vector_store.recent import RecentPoint, RecentPoints

A, B, C = (uuid.UUID(int=n) for n in (1, 2, 3))


def point(point_id: uuid.UUID, value: float, created: int | None = 7) -> RecentPoint:
    return RecentPoint(str(point_id), np.full(3, value, dtype=np.float32), created)


def held(recent: RecentPoints, ids: list[uuid.UUID]) -> dict[str, tuple[float, int | None]]:
    found: dict[str, tuple[float, int | None]] = {}
    for kept in recent.get(ids):
        if kept is not None and kept.vector is not None:
            found[kept.id] = (float(kept.vector[0]), kept.created_at_ms)
    return found


def test_the_least_recently_used_goes_first_when_full() -> None:
    recent = RecentPoints(2)
    recent.put([point(A, 1), point(B, 2)])
    assert held(recent, [A]) == {str(A): (1.0, 7)}  # A is now the most recent
    recent.put([point(C, 3)])
    assert held(recent, [A, B, C]) == {str(A): (1.0, 7), str(C): (3.0, 7)}


def test_a_put_replaces_and_a_drop_or_clear_forgets() -> None:
    recent = RecentPoints(10)
    recent.put([point(A, 1), point(B, 2)])
    recent.put([point(A, 5, created=None)])
    recent.drop([str(B), str(C)])
    assert held(recent, [A, B]) == {str(A): (5.0, None)}
    recent.clear()
    assert held(recent, [A]) == {}


def test_a_point_is_found_by_the_engine_s_id_and_keeps_its_id_as_the_engine_writes_it() -> None:
    recent = RecentPoints(10)
    upper = str(A).upper()
    recent.put([point(uuid.UUID(upper), 1)._replace(id=upper)])
    found, by_string = recent.get([A, str(A)])
    assert found is not None and found.id == "00000000-0000-0000-0000-000000000001"
    assert by_string is None  # a string is not the engine's id
