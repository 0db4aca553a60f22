"""The distinctness order of hybrid's vector hits."""

from __future__ import annotations

import numpy as np
import pytest

from service.core.read.redundancy import distinct_order, fellow_similarity
from service.stores.vector_store import VectorHit


def unit(*values: float) -> np.ndarray:
    vector = np.array(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


# Three near-copies (small talk said three times) and one distinct hit slightly further away.
COPY_A = VectorHit("a", 0.80, None, unit(1.0, 0.0, 0.0))
COPY_B = VectorHit("b", 0.79, None, unit(1.0, 0.05, 0.0))
COPY_C = VectorHit("c", 0.78, None, unit(1.0, 0.0, 0.05))
DISTINCT = VectorHit("d", 0.70, None, unit(0.0, 0.0, 1.0))


def test_fellow_similarity_is_the_mean_cosine_to_the_most_similar_others() -> None:
    shares = fellow_similarity([unit(1, 0), unit(1, 1), unit(0, 1)], neighbours=1)
    assert shares == pytest.approx([0.7071, 0.7071, 0.7071], abs=1e-4)
    shares = fellow_similarity([unit(1, 0), unit(1, 1), unit(0, 1)], neighbours=2)
    assert shares == pytest.approx([0.3536, 0.7071, 0.3536], abs=1e-4)


def test_fellow_similarity_normalises_and_skips_missing_vectors() -> None:
    shares = fellow_similarity([np.array([3.0, 0.0], np.float32), None, unit(1, 0)], 5)
    assert shares == pytest.approx([1.0, 0.0, 1.0])
    assert fellow_similarity([unit(1, 0)], 5) == [0.0]
    assert fellow_similarity([], 5) == []


def test_a_distinct_hit_moves_ahead_of_near_copies() -> None:
    hits = [COPY_A, COPY_B, COPY_C, DISTINCT]
    assert [h.id for h in distinct_order(hits, penalty=0.75, neighbours=2)] == [
        "d",
        "a",
        "b",
        "c",
    ]


def test_no_penalty_keeps_the_cosine_order_and_ties_go_to_the_id() -> None:
    hits = [COPY_A, COPY_B, COPY_C, DISTINCT]
    assert [h.id for h in distinct_order(hits, 0.0, 2)] == ["a", "b", "c", "d"]
    twins = [VectorHit("z", 0.5, None, unit(1, 0)), VectorHit("y", 0.5, None, unit(1, 0))]
    assert [h.id for h in distinct_order(twins, 0.75, 5)] == ["y", "z"]


def test_the_order_keeps_the_hits_and_their_cosines() -> None:
    ordered = distinct_order([COPY_A, COPY_B, DISTINCT], 0.75, 5)
    assert [hit is want for hit, want in zip(ordered, [DISTINCT, COPY_A, COPY_B], strict=True)] == [
        True,
        True,
        True,
    ]
