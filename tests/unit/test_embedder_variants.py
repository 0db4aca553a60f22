"""bench.embedder_variants' agreement of two models' vectors: cosines of the same texts, and how
often a query keeps its nearest memories."""

from __future__ import annotations

import numpy as np

from bench.embedder_variants import agreement

MEMORIES = np.eye(12, dtype=np.float32)
GRADED = np.linspace(1.0, 0.45, 12, dtype=np.float32)[None, :]  # memory 0 nearest, 11 farthest
QUERY = (GRADED / np.linalg.norm(GRADED)).astype(np.float32)


def test_the_same_vectors_agree_entirely() -> None:
    assert agreement((MEMORIES, QUERY), (MEMORIES.copy(), QUERY.copy())) == {
        "memory_cosine_mean": 1.0,
        "memory_cosine_min": 1.0,
        "query_cosine_mean": 1.0,
        "top1_same": 1.0,
        "top10_overlap": 1.0,
    }


def test_two_memories_whose_vectors_trade_places_move_the_nearest_and_one_of_ten() -> None:
    swapped = MEMORIES[[11, *range(1, 11), 0]]
    result = agreement((MEMORIES, QUERY), (swapped, QUERY))
    assert result == {
        "memory_cosine_mean": round(10 / 12, 4),
        "memory_cosine_min": 0.0,
        "query_cosine_mean": 1.0,
        "top1_same": 0.0,
        "top10_overlap": 0.9,
    }
