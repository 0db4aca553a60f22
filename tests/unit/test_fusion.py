"""Ranking arithmetic of search and retrieve_context."""

from __future__ import annotations

import pytest

from service.core.errors import InvalidParameter
from service.core.fusion import (
    Candidate,
    graph_score,
    keep_best,
    keyword_score,
    merge,
    order_by,
    rrf,
)
from service.core.search_inputs import MemoryFilters, parse_date, parse_sort_by


def test_graph_scores_are_one_over_hops_plus_half() -> None:
    assert [round(graph_score(h), 3) for h in (1, 2, 3)] == [0.667, 0.4, 0.286]


def test_keyword_scores_saturate_into_zero_one() -> None:
    assert keyword_score(2.0, 2.0) == 0.5
    assert keyword_score(0.0, 2.0) == 0.0
    assert keyword_score(6.0, 2.0) == 0.75


def test_rrf_adds_reciprocal_ranks_and_marks_both() -> None:
    fused = rrf({"bm25": ["a", "b"], "vector": ["b", "c"]}, k=60)
    assert [(i, m) for i, _, m in fused] == [("b", "both"), ("a", "bm25"), ("c", "vector")]
    assert fused[0][1] == pytest.approx(1 / 62 + 1 / 61)
    assert fused[1][1] == pytest.approx(1 / 61)


def test_rrf_ties_break_by_id() -> None:
    fused = rrf({"bm25": ["z"], "vector": ["a"]}, k=60)
    assert [i for i, _, _ in fused] == ["a", "z"]


def test_merge_keeps_every_channel_score_and_the_best_as_source() -> None:
    merged = merge({"vector": {"m": 0.5}, "kv": {"m": 0.9}, "keyword": {"n": 0.3}})
    assert merged["m"].scores == {"vector": 0.5, "kv": 0.9}
    assert (merged["m"].score, merged["m"].source) == (0.9, "kv")
    assert merged["n"].source == "keyword"


def test_keep_best_then_timestamp_order_newest_first_missing_last() -> None:
    candidates = [
        Candidate("a", {"vector": 0.9}),
        Candidate("b", {"vector": 0.5}),
        Candidate("c", {"vector": 0.7}),
        Candidate("d", {"vector": 0.1}),
    ]
    created = {"a": 100, "b": 300, "c": None, "d": 400}
    kept = keep_best(candidates, created, 3)
    assert [c.id for c in kept] == ["a", "c", "b"]
    assert [c.id for c in order_by(kept, "timestamp", created)] == ["b", "a", "c"]
    assert [c.id for c in order_by(kept, "relevance", created)] == ["a", "c", "b"]


def test_keep_best_breaks_score_ties_newer_first_then_id() -> None:
    candidates = [Candidate(i, {"graph": 0.4}) for i in ("x", "y", "z")]
    kept = keep_best(candidates, {"x": 1, "y": 2, "z": 2}, 2)
    assert [c.id for c in kept] == ["y", "z"]


@pytest.mark.parametrize("value", ["invalid", "Timestamp", "", 1])
def test_invalid_sort_by_has_the_exact_message(value: object) -> None:
    with pytest.raises(InvalidParameter) as caught:
        parse_sort_by(value)
    assert caught.value.message == (
        f"Invalid sort_by value: '{value}'. Must be 'timestamp' or 'relevance'"
    )


def test_date_filters_are_inclusive_whole_days() -> None:
    start = parse_date("date_from", "2025-01-10", end_of_day=False)
    end = parse_date("date_to", "2025-01-10", end_of_day=True)
    assert start is not None and end is not None
    assert start.isoformat() == "2025-01-10T00:00:00+00:00"
    assert end.isoformat() == "2025-01-10T23:59:59.999000+00:00"
    moment = parse_date("date_from", "2025-01-10T12:30:00Z", end_of_day=False)
    assert moment is not None and moment.isoformat() == "2025-01-10T12:30:00+00:00"
    with pytest.raises(InvalidParameter):
        parse_date("date_from", "last week", end_of_day=False)


def test_python_filter_matches_the_cypher_rules() -> None:
    flt = MemoryFilters(types=("decision",), tags=("a",), min_score=60)
    assert flt.admits({"type": "decision", "tags": ["a", "b"], "score": 70, "created_ms": 1})
    assert not flt.admits({"type": "note", "tags": ["a"], "score": 70, "created_ms": 1})
    assert not flt.admits({"type": "decision", "tags": ["b"], "score": 70, "created_ms": 1})
    assert not flt.admits({"type": "decision", "tags": ["a"], "score": None, "created_ms": 1})
