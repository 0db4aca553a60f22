"""Lucene query building (user input is never query syntax) and highlighted excerpts."""

from __future__ import annotations

import pytest

from service.core.read.fulltext import (
    excerpt,
    free_text_query,
    keywords_query,
    match_spans,
    parse_keywords,
    quote_term,
    searched_word_count,
)
from service.errors import InvalidParameter


def test_keywords_come_from_a_list_or_a_comma_separated_string() -> None:
    assert parse_keywords(["neo4j", " graph ", "", "neo4j"]) == ["neo4j", "graph"]
    assert parse_keywords("neo4j, graph ,,fulltext") == ["neo4j", "graph", "fulltext"]


@pytest.mark.parametrize("value", ["", " , ", [], [1], 5])
def test_keywords_without_any_term_or_of_a_wrong_type_are_refused(value: object) -> None:
    with pytest.raises(InvalidParameter):
        parse_keywords(value)


def test_lucene_syntax_in_user_input_is_quoted_as_plain_text() -> None:
    assert quote_term("foo) OR (*") == '"foo) OR (*"'
    assert quote_term('say "hi" \\ now') == '"say \\"hi\\" \\\\ now"'
    assert keywords_query(["a b", "c"], "AND") == '"a b" AND "c"'
    assert keywords_query(["x"], "OR") == '"x"'


def test_free_text_becomes_or_of_quoted_words() -> None:
    assert free_text_query("auth bug: (login)*") == '"auth" OR "bug" OR "login"'
    assert free_text_query("  ?!  ") is None


def test_matches_ignore_case_and_accents_and_respect_word_boundaries() -> None:
    text = "Café OAUTH oauthlib cafe"
    assert match_spans(text, ["cafe"]) == [(0, 4), (20, 24)]
    assert match_spans(text, ["oauth"]) == [(5, 10)]


def test_spans_map_back_to_the_original_text_when_folding_changes_its_length() -> None:
    text = "\ufb01le Café file"  # the "fi" ligature folds to two characters
    assert match_spans(text, ["file"]) == [(0, 3), (9, 13)]
    assert match_spans("CAFE café", ["Café"]) == [(0, 4), (5, 9)]
    assert excerpt(text, ["file"]) == "<mark>\ufb01le</mark> Café <mark>file</mark>"


def test_cjk_terms_match_as_substrings() -> None:
    text = "我们使用数据库存储记忆"
    assert match_spans(text, ["数据库"]) == [(4, 7)]


def test_excerpt_marks_every_term_and_escapes_html() -> None:
    text = "Use <b>Neo4j</b> & Qdrant: neo4j stores graphs"
    assert excerpt(text, ["neo4j", "qdrant"]) == (
        "Use &lt;b&gt;<mark>Neo4j</mark>&lt;/b&gt; &amp; <mark>Qdrant</mark>: "
        "<mark>neo4j</mark> stores graphs"
    )


def test_excerpt_of_long_text_is_cut_around_the_match_with_ellipses() -> None:
    text = ("lorem ipsum " * 60) + "the needle is here " + ("dolor sit " * 60)
    result = excerpt(text, ["needle"])
    assert result.startswith("…")
    assert result.endswith("…")
    assert "<mark>needle</mark>" in result
    plain = result.replace("<mark>", "").replace("</mark>", "").strip("…")
    assert len(plain) <= 300


def test_excerpt_without_matches_is_the_start_of_the_text() -> None:
    assert excerpt("short text", ["absent"]) == "short text"
    assert excerpt("word " * 100, ["absent"]).endswith("…")


def test_excerpt_prefers_the_window_with_most_matches() -> None:
    text = "alpha " + "filler " * 80 + "beta gamma beta gamma " + "filler " * 80
    result = excerpt(text, ["beta", "gamma"], max_chars=120)
    assert result.count("<mark>") == 4
    assert "alpha" not in result


def test_question_words_are_dropped_from_recall_queries_unless_nothing_is_left() -> None:
    assert free_text_query("When did Ana start painting?", drop_question_words=True) == (
        '"Ana" OR "start" OR "painting"'
    )
    assert free_text_query("what did you do", drop_question_words=True) == (
        '"what" OR "did" OR "you" OR "do"'
    )
    assert free_text_query("When did Ana start painting?") == (
        '"When" OR "did" OR "Ana" OR "start" OR "painting"'
    )


def test_searched_words_leave_out_question_and_stop_words() -> None:
    assert searched_word_count("When did Caroline go to the LGBTQ support group?") == 4
    assert searched_word_count("Which animals live with Priya these days?") == 4
    assert searched_word_count("what did you do") == 4  # nothing topical: all four searched
    assert searched_word_count("the") == 1
