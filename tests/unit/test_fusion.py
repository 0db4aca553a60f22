"""Ranking arithmetic of search and retrieve_context."""

from __future__ import annotations

import pytest

from service.core.read.fusion import (
    Candidate,
    FusionWeights,
    bm25_of,
    collect,
    fuse,
    graph_evidence,
    graph_score,
    keep_best,
    keyword_score,
    order_by,
    rrf,
    single_channel,
    word_coverage,
)
from service.core.search_inputs import parse_date, parse_sort_by
from service.errors import InvalidParameter
from service.filters import MemoryFilters


def test_graph_scores_are_one_over_hops_plus_half() -> None:
    assert [round(graph_score(h), 3) for h in (1, 2, 3)] == [0.667, 0.4, 0.286]


def test_keyword_scores_saturate_into_zero_one() -> None:
    assert keyword_score(2.0, 2.0) == 0.5
    assert keyword_score(0.0, 2.0) == 0.0
    assert keyword_score(6.0, 2.0) == 0.75


def test_bm25_is_read_back_from_its_keyword_score() -> None:
    assert bm25_of(keyword_score(6.0, 2.0), 2.0) == pytest.approx(6.0)
    assert bm25_of(0.5, 5.0) == pytest.approx(5.0)
    assert bm25_of(0.0, 2.0) == 0.0


def test_word_coverage_is_bm25_per_searched_word_capped_at_one() -> None:
    assert word_coverage(3.0, 3, 2.0) == pytest.approx(0.5)
    assert word_coverage(12.0, 3, 2.0) == 1.0
    assert word_coverage(3.0, 0, 2.0) == 1.0  # at least one word
    assert word_coverage(0.5, 4, 0.0) == 1.0  # off: the rank alone counts


def test_rrf_adds_reciprocal_ranks_and_marks_both() -> None:
    fused = rrf({"bm25": ["a", "b"], "vector": ["b", "c"]}, k=60)
    assert [(i, m) for i, _, m in fused] == [("b", "both"), ("a", "bm25"), ("c", "vector")]
    assert fused[0][1] == pytest.approx(1 / 62 + 1 / 61)
    assert fused[1][1] == pytest.approx(1 / 61)


def test_rrf_ties_break_by_id() -> None:
    fused = rrf({"bm25": ["z"], "vector": ["a"]}, k=60)
    assert [i for i, _, _ in fused] == ["a", "z"]


EQUAL = FusionWeights(channels={"vector": 1.0, "keyword": 1.0, "kv": 1.0}, graph=1.0, k=60)


def test_collect_keeps_every_channel_score_and_rank() -> None:
    found = collect({"vector": [("m", 0.5), ("n", 0.4)], "kv": [("m", 0.9)]})
    assert (found["m"].scores, found["m"].ranks) == (
        {"vector": 0.5, "kv": 0.9},
        {"vector": 1, "kv": 1},
    )
    assert (found["n"].scores, found["n"].ranks) == ({"vector": 0.4}, {"vector": 2})


def test_fused_relevance_is_one_for_first_place_in_every_channel_that_ran() -> None:
    found = collect({"vector": [("m", 0.3)], "keyword": [("m", 0.2)]})
    fuse(found.values(), EQUAL, ["vector", "keyword"])
    assert found["m"].score == 1.0


def test_found_by_two_channels_outranks_found_by_one_at_equal_rank() -> None:
    found = collect({"vector": [("both", 0.6), ("one", 0.9)], "keyword": [("both", 0.1)]})
    fuse(found.values(), EQUAL, ["vector", "keyword", "kv"])
    assert found["both"].score == pytest.approx(2 / 3)
    assert found["one"].score == pytest.approx((61 / 62) / 3)
    assert (found["both"].source, found["one"].source) == ("keyword", "vector")


COVERING = FusionWeights(
    channels={"vector": 1.0, "keyword": 1.0, "keyword_context": 1.0}, graph=0.0, k=10, per_word=2.0
)


def test_a_keyword_hit_counts_by_how_much_of_the_query_its_bm25_covers() -> None:
    # BM25 2.0 (score 0.5) on a 4-word query covers 2 / (2 × 4) = 0.25; BM25 14.0 covers all.
    found = collect(
        {
            "keyword": [
                ("name-only", keyword_score(2.0, 2.0)),
                ("topical", keyword_score(14.0, 2.0)),
            ],
            "keyword_context": [("topical", keyword_score(6.0, 2.0))],
        }
    )
    fuse(found.values(), COVERING, ["vector", "keyword", "keyword_context"], words=4)
    assert found["name-only"].score == pytest.approx(0.25 / 3)
    assert found["topical"].score == pytest.approx((11 / 12 + 0.75) / 3)
    fuse(found.values(), COVERING, ["vector", "keyword", "keyword_context"], words=1)
    assert found["name-only"].score == pytest.approx(1.0 / 3)


def test_graph_evidence_scales_with_seed_relevance_weight_and_hops() -> None:
    assert graph_evidence(1.0, 1) == pytest.approx(1.0)
    assert graph_evidence(0.8 * 0.5, 1) == pytest.approx(0.4)
    assert graph_evidence(0.8 * 0.5 * 0.5, 2) == pytest.approx(0.2 * 0.6)


def test_graph_evidence_enters_the_fused_relevance_with_its_weight() -> None:
    found = collect({"vector": [("seed", 0.9)]})
    found["near"] = Candidate("near", scores={"graph": graph_score(1)}, graph_evidence=0.5)
    fuse(found.values(), EQUAL, ["vector", "graph"])
    assert (found["seed"].score, found["near"].score) == (0.5, 0.25)
    assert (found["near"].source, found["near"].scores) == ("graph", {"graph": 1 / 1.5})


def test_fusing_again_after_the_walk_scores_as_fusing_once_with_the_graph_evidence() -> None:
    hits = {
        "vector": [("a", 0.9), ("b", 0.8), ("c", 0.7)],
        "keyword": [("b", keyword_score(3.0, 2.0)), ("c", keyword_score(9.0, 2.0))],
        "keyword_context": [("c", keyword_score(1.0, 2.0))],
    }
    weights = FusionWeights(
        channels={"vector": 0.7, "keyword": 1.3, "keyword_context": 0.4},
        graph=0.9,
        k=10,
        per_word=2.0,
    )
    ran = ["vector", "keyword", "keyword_context"]
    walked, once = collect(hits), collect(hits)
    fuse(walked.values(), weights, ran, words=3)
    for found in (walked, once):
        found["b"].graph_evidence = 0.3
        found["d"] = Candidate("d", scores={"graph": graph_score(2)}, graph_evidence=0.2)
    fuse(walked.values(), weights, [*ran, "graph"], words=3)
    fuse(once.values(), weights, [*ran, "graph"], words=3)

    assert [(c.id, c.score, c.source) for c in walked.values()] == [
        (c.id, c.score, c.source) for c in once.values()
    ]
    assert [c.source for c in walked.values()] == ["vector", "keyword", "keyword", "graph"]


def test_single_channel_mode_scores_are_the_raw_channel_scores() -> None:
    found = collect({"keyword": [("a", 0.42), ("b", 0.1)]})
    single_channel(found.values(), "keyword")
    assert [(c.score, c.source) for c in found.values()] == [(0.42, "keyword"), (0.1, "keyword")]


def test_keep_best_then_timestamp_order_newest_first_missing_last() -> None:
    candidates = [
        Candidate("a", score=0.9),
        Candidate("b", score=0.5),
        Candidate("c", score=0.7),
        Candidate("d", score=0.1),
    ]
    created = {"a": 100, "b": 300, "c": None, "d": 400}
    kept = keep_best(candidates, created, 3)
    assert [c.id for c in kept] == ["a", "c", "b"]
    assert [c.id for c in order_by(kept, "timestamp", created)] == ["b", "a", "c"]
    assert [c.id for c in order_by(kept, "relevance", created)] == ["a", "c", "b"]


def test_keep_best_breaks_score_ties_newer_first_then_id() -> None:
    candidates = [Candidate(i, score=0.4) for i in ("x", "y", "z")]
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
    zoned = parse_date("date_from", "2025-01-10T12:30:00+14:00", end_of_day=False)
    assert zoned is not None and zoned.isoformat() == "2025-01-09T22:30:00+00:00"


@pytest.mark.parametrize("value", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"])
def test_a_datetime_that_utc_cannot_hold_is_refused_by_name(value: str) -> None:
    with pytest.raises(InvalidParameter) as caught:
        parse_date("date_to", value, end_of_day=True)
    assert caught.value.message == (
        f"Invalid date_to value: '{value}'. Must be an ISO date (2026-01-10) or datetime "
        "(2026-01-10T12:00:00Z) within the years 1-9999 in UTC"
    )


def test_python_filter_matches_the_cypher_rules() -> None:
    flt = MemoryFilters(types=("decision",), tags=("a",), min_score=60)
    assert flt.admits({"type": "decision", "tags": ["a", "b"], "score": 70, "created_ms": 1})
    assert not flt.admits({"type": "note", "tags": ["a"], "score": 70, "created_ms": 1})
    assert not flt.admits({"type": "decision", "tags": ["b"], "score": 70, "created_ms": 1})
    assert not flt.admits({"type": "decision", "tags": ["a"], "score": None, "created_ms": 1})
