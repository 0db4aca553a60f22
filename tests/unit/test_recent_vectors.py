"""The recent stored vectors an embedded shard keeps in memory."""

from __future__ import annotations

import numpy as np

from service.stores.vector_store.recent import RecentVectors


def vector(value: float) -> np.ndarray:
    return np.full(3, value, dtype=np.float32)


def held(recent: RecentVectors, ids: list[str]) -> dict[str, float]:
    return {point_id: float(v[0]) for point_id, v in recent.get(ids).items()}


def test_the_least_recently_used_goes_first_when_full() -> None:
    recent = RecentVectors(2)
    recent.put([("a", vector(1)), ("b", vector(2))])
    assert held(recent, ["a"]) == {"a": 1.0}  # a is now the most recent
    recent.put([("c", vector(3))])
    assert held(recent, ["a", "b", "c"]) == {"a": 1.0, "c": 3.0}


def test_a_put_replaces_and_a_drop_or_clear_forgets() -> None:
    recent = RecentVectors(10)
    recent.put([("a", vector(1)), ("b", vector(2))])
    recent.put([("a", vector(5))])
    recent.drop(["b", "missing"])
    assert held(recent, ["a", "b"]) == {"a": 5.0}
    recent.clear()
    assert held(recent, ["a"]) == {}
