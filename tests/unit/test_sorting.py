"""Link sorting (docs/contract.md §3, seeds 000 and 001) as a pure function."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.core.sorting import combined_score, filter_links, parse_sort_links, sort_links
from service.errors import InvalidParameter


def link(
    key: str, weight: float, score: float | None, link_type: str = "related"
) -> dict[str, Any]:
    return {"id": f"id-{key}", "key": key, "type": link_type, "weight": weight, "score": score}


def keys(links: list[dict[str, Any]]) -> list[str]:
    return [item["key"] for item in links]


def test_links_sort_by_weight_times_score_descending() -> None:
    links = [link("a", 0.5, 40), link("b", 0.9, 90), link("c", 0.75, 80)]
    assert keys(sort_links(links, sort=True)) == ["b", "c", "a"]


def test_links_with_equal_combined_score_sort_by_weight_descending() -> None:
    links = [link("a", 0.5, 80), link("b", 0.8, 50), link("c", 0.4, 100)]
    assert [combined_score(x["weight"], x["score"]) for x in links] == [40.0, 40.0, 40.0]
    assert keys(sort_links(links, sort=True)) == ["b", "a", "c"]


def test_links_with_equal_combined_score_and_weight_sort_by_key_ascending() -> None:
    links = [link("zeta", 0.5, 60), link("alpha", 0.5, 60), link("Mid", 0.5, 60)]
    assert keys(sort_links(links, sort=True)) == ["Mid", "alpha", "zeta"]


def test_link_to_memory_without_score_uses_fifty() -> None:
    links = [link("scored", 0.5, 49), link("unscored", 0.5, None), link("high", 0.5, 51)]
    assert combined_score(0.5, None) == 25.0
    assert keys(sort_links(links, sort=True)) == ["high", "unscored", "scored"]


def test_weight_point_seven_five_times_score_eighty_is_sixty() -> None:
    assert combined_score(0.75, 80) == 60.0


def test_weight_zero_gives_zero_whatever_the_score() -> None:
    assert combined_score(0.0, 100) == 0.0
    assert combined_score(0.0, None) == 0.0


def test_score_zero_gives_zero_whatever_the_weight() -> None:
    assert combined_score(1.0, 0) == 0.0


def test_weight_one_times_score_hundred_is_the_maximum_hundred() -> None:
    assert combined_score(1.0, 100) == 100.0


def test_zero_combined_scores_tie_break_by_weight_then_key() -> None:
    links = [link("b", 0.0, 100), link("a", 0.0, 90), link("c", 1.0, 0)]
    assert keys(sort_links(links, sort=True)) == ["c", "a", "b"]


def test_sort_false_keeps_creation_order() -> None:
    links = [link("a", 0.1, 10), link("b", 0.9, 90), link("c", 0.5, 50)]
    assert keys(sort_links(links, sort=False)) == ["a", "b", "c"]


def test_filters_apply_before_sorting() -> None:
    links = [
        link("a", 0.2, 100, "cites"),
        link("b", 0.9, 10, "related"),
        link("c", 0.6, 90, "cites"),
        link("d", 0.7, 80, "cites"),
    ]
    kept = filter_links(links, link_types=["cites"], min_weight=0.5)
    assert keys(sort_links(kept, sort=True)) == ["d", "c"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, True),
        (False, False),
        ("true", True),
        ("false", False),
        ("TRUE", True),
        ("False", False),
        ("  true  ", True),
        (None, True),
        ("", True),
    ],
)
def test_sort_links_parameter_accepts_booleans_and_boolean_strings(
    value: object, expected: bool
) -> None:
    assert parse_sort_links(value) is expected


@pytest.mark.parametrize(
    ("value", "shown"),
    [("yes", "yes"), (1, "1"), ("1", "1"), ([], "[]"), (0, "0"), ("no", "no")],
)
def test_sort_links_parameter_rejects_anything_else_with_the_exact_message(
    value: object, shown: str
) -> None:
    with pytest.raises(InvalidParameter) as caught:
        parse_sort_links(value)
    assert caught.value.message == f"Invalid sortLinks value: '{shown}'. Must be true or false"
    assert caught.value.error_type == "invalid_parameter"


link_strategy = st.builds(
    link,
    key=st.text(min_size=1, max_size=6),
    weight=st.floats(min_value=0, max_value=1, allow_nan=False),
    score=st.one_of(st.none(), st.floats(min_value=0, max_value=100, allow_nan=False)),
)


unique_links = st.lists(link_strategy, max_size=30, unique_by=lambda x: x["key"])


@given(unique_links)
def test_sorted_links_are_a_total_order_consistent_with_the_rules(
    links: list[dict[str, Any]],
) -> None:
    ordered = sort_links(links, sort=True)
    assert sorted(map(id, ordered)) == sorted(map(id, links))
    for before, after in itertools.pairwise(ordered):
        a = combined_score(before["weight"], before["score"])
        b = combined_score(after["weight"], after["score"])
        assert a >= b
        if a == b:
            assert before["weight"] >= after["weight"]
            if before["weight"] == after["weight"]:
                assert before["key"] <= after["key"]


@given(unique_links)
def test_sorting_is_independent_of_input_order(links: list[dict[str, Any]]) -> None:
    forward = sort_links(links, sort=True)
    backward = sort_links(list(reversed(links)), sort=True)
    assert [(x["key"], x["weight"], x["score"]) for x in forward] == [
        (x["key"], x["weight"], x["score"]) for x in backward
    ]
