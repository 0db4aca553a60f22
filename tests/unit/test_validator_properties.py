"""The validators under generated input (hypothesis): each accepts exactly what its rule says,
refuses everything else with `InvalidParameter` (or pydantic's error turned into it), and never
fails any other way."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from service.auth import Principal
from service.config import NAMESPACE_PATTERN
from service.core.models import SaveInput
from service.core.read.fulltext import MAX_KEYWORD_CHARS, MAX_KEYWORDS, parse_keywords, quote_term
from service.core.search_inputs import parse_sort_by
from service.core.sorting import parse_sort_links
from service.errors import Forbidden, InvalidParameter, invalid_from_validation

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@given(st.text() | st.sampled_from([" TRUE ", "False", "", "true", "yes", "1"]))
def test_sort_links_accepts_true_false_and_blank_text_only(value: str) -> None:
    word = value.strip().lower()
    if word in ("", "true", "false"):
        assert parse_sort_links(value) is (word != "false")
    else:
        with pytest.raises(InvalidParameter) as caught:
            parse_sort_links(value)
        assert caught.value.message == f"Invalid sortLinks value: '{value}'. Must be true or false"


@given(JSON.filter(lambda v: v is not None and not isinstance(v, bool | str)))
def test_sort_links_refuses_every_other_json_value(value: Any) -> None:
    with pytest.raises(InvalidParameter, match=r"^Invalid sortLinks value: "):
        parse_sort_links(value)


@given(JSON)
def test_sort_by_accepts_timestamp_relevance_or_nothing(value: Any) -> None:
    if value is None or value in ("timestamp", "relevance"):
        assert parse_sort_by(value) == (value or "timestamp")
    else:
        with pytest.raises(InvalidParameter) as caught:
            parse_sort_by(value)
        assert caught.value.message.endswith("Must be 'timestamp' or 'relevance'")


def unquote(phrase: str) -> str:
    assert phrase[0] == phrase[-1] == '"'
    inner = phrase[1:-1]
    assert re.search(r'(?<!\\)(\\\\)*"', inner) is None  # no quote ends the phrase early
    return re.sub(r"\\(.)", r"\1", inner, flags=re.DOTALL)


@given(st.text())
def test_a_quoted_term_is_one_phrase_that_gives_back_the_text(text: str) -> None:
    assert unquote(quote_term(text)) == text


@given(st.lists(st.text(max_size=300), max_size=40) | st.text(max_size=400))
def test_keywords_are_the_distinct_non_blank_parts_within_the_limits(value: Any) -> None:
    parts = value.split(",") if isinstance(value, str) else value
    wanted = list(dict.fromkeys(p.strip() for p in parts if p.strip()))
    fits = 0 < len(wanted) <= MAX_KEYWORDS and all(len(w) <= MAX_KEYWORD_CHARS for w in wanted)
    if fits:
        assert parse_keywords(value) == wanted
    else:
        with pytest.raises(InvalidParameter, match=r"^Invalid keywords value: "):
            parse_keywords(value)


@given(st.dictionaries(st.sampled_from(sorted(SaveInput.model_fields)) | st.text(), JSON))
def test_any_save_body_is_valid_or_one_named_invalid_parameter(body: dict[str, Any]) -> None:
    try:
        SaveInput.model_validate(body)
    except ValidationError as exc:
        message = invalid_from_validation(exc.errors()).message
        assert message.startswith(("Invalid ", "Missing required parameter '"))
    except InvalidParameter as exc:
        assert exc.message.startswith("Invalid ")


@given(st.text(max_size=80))
def test_only_an_admin_names_another_namespace_and_only_a_well_formed_one(name: str) -> None:
    admin, writer = Principal("home", "admin"), Principal("home", "writer")
    if name == "home":
        assert (admin.namespace_for(name), writer.namespace_for(name)) == ("home", "home")
        return
    with pytest.raises(Forbidden):
        writer.namespace_for(name)
    if re.fullmatch(NAMESPACE_PATTERN, name):
        assert admin.namespace_for(name) == name
    else:
        with pytest.raises(InvalidParameter, match=r"^Invalid namespace value: "):
            admin.namespace_for(name)
