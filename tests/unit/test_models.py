"""Pure derivations of the Memory object (docs/contract.md §1)."""

from __future__ import annotations

import functools
from datetime import UTC, datetime
from typing import cast

import pytest
from pydantic import ValidationError

from service.core.models import (
    LinkSpec,
    SaveInput,
    derive_key,
    derive_summary,
    iso_ms,
    link_view,
    memory_size_bytes,
    redact,
    slugify,
)
from service.core.search_inputs import RetrieveInput
from service.errors import invalid_from_validation


def test_private_spans_are_replaced_by_redacted() -> None:
    text = "keep <private>api key 123</private> and <PRIVATE>x\ny</PRIVATE> end"
    assert redact(text) == "keep [REDACTED] and [REDACTED] end"


def test_unclosed_private_span_is_redacted_to_the_end() -> None:
    assert redact("visible <private>secret forever") == "visible [REDACTED]"


def test_derived_key_is_type_slug_and_eight_hex_of_id() -> None:
    key = derive_key("decision", "Use sql.js!", "", "1a2b3c4d-0000-4000-8000-000000000000")
    assert key == "decision:use-sql-js:1a2b3c4d"


def test_derived_key_without_title_uses_the_first_words_of_content() -> None:
    key = derive_key("note", "", "Café menus are great today", "abcdef01-0000-4000-8000-0")
    assert key == "note:cafe-menus-are-great-today:abcdef01"


def test_slug_of_text_without_ascii_letters_is_untitled() -> None:
    assert slugify("数据库") == "untitled"


def test_short_content_is_its_own_summary() -> None:
    assert derive_summary("  one   line\nsummary ") == "one line summary"


def test_long_content_summary_is_cut_at_a_word_with_ellipsis() -> None:
    summary = derive_summary("word " * 100)
    assert summary.endswith("word…")
    assert len(summary) <= 201


def test_timestamps_render_in_utc_with_milliseconds() -> None:
    moment = datetime(2026, 1, 10, 12, 0, 0, 123456, tzinfo=UTC)
    assert iso_ms(moment) == "2026-01-10T12:00:00.123Z"
    assert iso_ms(None) is None
    assert iso_ms(1768046400123) == "2026-01-10T12:00:00.123Z"
    assert iso_ms(-1) == "1969-12-31T23:59:59.999Z"


def test_timestamps_of_one_second_keep_their_own_milliseconds() -> None:
    second = 1768046400000  # the formatted second is cached: only the milliseconds differ
    shown = [iso_ms(second + ms) for ms in (0, 7, 999, 1000)]
    assert shown == [
        "2026-01-10T12:00:00.000Z",
        "2026-01-10T12:00:00.007Z",
        "2026-01-10T12:00:00.999Z",
        "2026-01-10T12:00:01.000Z",
    ]
    assert iso_ms(-62135596800000) == "0001-01-01T00:00:00.000Z"


def test_link_view_rounds_combined_score_to_four_decimals() -> None:
    view = link_view({"id": "i", "key": "k", "type": "related", "weight": 1 / 3, "score": 10})
    assert view["combined_score"] == 3.3333
    assert (
        link_view({"id": "i", "key": "k", "type": "t", "weight": 0.5, "score": None})[
            "combined_score"
        ]
        == 25.0
    )


def test_size_counts_utf8_bytes_and_four_bytes_per_dimension() -> None:
    fields = {"key": "k", "type": "note", "title": "é", "content": "abc", "tags": ["x"]}
    assert memory_size_bytes(fields, 384) == 1 + 4 + 2 + 3 + 1 + 4 * 384


@pytest.mark.parametrize(
    "key",
    ["has space", "a/b", "tab\there", "", "x" * 513, "nul\x00", "del\x7f", "c1\x90", "c1\x9f"],
)
def test_keys_with_whitespace_slash_control_or_bad_length_are_refused(key: str) -> None:
    with pytest.raises(ValidationError):
        SaveInput(content="c", key=key)


@pytest.mark.parametrize("memory_type", ["Decision", "a b", "x" * 65, ""])
def test_types_outside_the_pattern_are_refused(memory_type: str) -> None:
    with pytest.raises(ValidationError):
        SaveInput(content="c", type=memory_type)


def test_more_than_32_tags_are_refused() -> None:
    with pytest.raises(ValidationError):
        SaveInput(content="c", tags=[f"t{i}" for i in range(33)])


@pytest.mark.parametrize("score", [-0.1, 100.1])
def test_scores_outside_zero_to_hundred_are_refused(score: float) -> None:
    with pytest.raises(ValidationError):
        SaveInput(content="c", score=score)


def test_a_link_needs_exactly_one_of_key_or_id() -> None:
    with pytest.raises(ValidationError):
        LinkSpec()
    with pytest.raises(ValidationError):
        LinkSpec(key="a", id="b")
    assert LinkSpec(key="a").weight == 0.5
    assert LinkSpec(key="a").type == "related"


@pytest.mark.parametrize("weight", [-0.01, 1.01])
def test_link_weights_outside_zero_to_one_are_refused(weight: float) -> None:
    with pytest.raises(ValidationError):
        LinkSpec(key="a", weight=weight)


def lists_nested(levels: int) -> list[object]:
    """[[[]]] for 3: a list `levels` deep."""
    return functools.reduce(lambda inner, _: [inner], range(levels - 1), cast(list[object], []))


@pytest.mark.parametrize(
    ("metadata", "reason"),
    [
        ({"n": float("nan")}, "NaN and Infinity are not JSON numbers"),
        ({"n": [float("-inf")]}, "NaN and Infinity are not JSON numbers"),
        ({"s": "\ud800"}, "a string holds a lone UTF-16 surrogate"),
        ({"\udc00": 1}, "a name holds a lone UTF-16 surrogate"),
        ({"d": lists_nested(65)}, "nested deeper than 64 levels"),
    ],
)  # fmt: skip
def test_metadata_no_store_can_hold_is_refused_whatever_the_transport(
    metadata: dict[str, object], reason: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        SaveInput(content="c", metadata=metadata)
    assert invalid_from_validation(caught.value.errors()).message.endswith(f". {reason}")
    assert SaveInput(content="c", metadata={"d": lists_nested(63)}).metadata["d"] == lists_nested(
        63
    )


def test_numbers_never_take_true_or_false() -> None:
    refused = [
        (SaveInput, {"content": "c", "score": True}, "Invalid score value: true"),
        (
            SaveInput,
            {"content": "c", "links": [{"key": "k", "weight": False}]},
            "Invalid links.0.weight value: false",
        ),
        (RetrieveInput, {"query": "q", "limit": True}, "Invalid limit value: true"),
        (RetrieveInput, {"query": "q", "max_hops": True}, "Invalid max_hops value: true"),
    ]  # fmt: skip
    for model, body, start in refused:
        with pytest.raises(ValidationError) as caught:
            model.model_validate(body)
        message = invalid_from_validation(caught.value.errors()).message
        assert message == f"{start}. Must be a number, not true or false"
    assert RetrieveInput.model_validate({"query": "q", "limit": "7"}).limit == 7  # a query string
