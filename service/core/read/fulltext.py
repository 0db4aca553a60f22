"""Fulltext text handling: Lucene queries from user input (never interpreted) and highlighted
excerpts with `<mark>` around matched terms.

Pure functions; the Neo4j fulltext index uses the `standard-folding` analyzer (docs/search.md).
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import cast

from service.errors import InvalidParameter

EXCERPT_CHARS = 300
ELLIPSIS = "…"
MAX_KEYWORDS = 32
MAX_KEYWORD_CHARS = 256
_WORD = re.compile(r"\w+", re.UNICODE)


def parse_keywords(value: object) -> list[str]:
    """Keywords from a list or one comma-separated string; blanks dropped, order kept."""
    if isinstance(value, str):
        parts = value.split(",")
    elif isinstance(value, list) and all(
        isinstance(item, str) for item in cast(list[object], value)
    ):
        parts = [str(item) for item in cast(list[object], value)]
    else:
        raise InvalidParameter(
            "Invalid keywords value: must be a list of strings or a comma-separated string"
        )
    keywords = list(dict.fromkeys(part.strip() for part in parts if part.strip()))
    if not keywords:
        raise InvalidParameter("Invalid keywords value: at least one non-blank keyword is needed")
    if len(keywords) > MAX_KEYWORDS:
        raise InvalidParameter(f"Invalid keywords value: at most {MAX_KEYWORDS} keywords")
    if any(len(keyword) > MAX_KEYWORD_CHARS for keyword in keywords):
        raise InvalidParameter(
            f"Invalid keywords value: each keyword is at most {MAX_KEYWORD_CHARS} characters"
        )
    return keywords


def quote_term(text: str) -> str:
    """One Lucene phrase: the text is analyzed but never parsed as query syntax."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def keywords_query(keywords: Sequence[str], operator: str) -> str:
    """Each keyword a quoted phrase, joined by AND or OR."""
    return f" {operator} ".join(quote_term(keyword) for keyword in keywords)


# Words of questions and small talk that carry no topic: "when did Ana start painting?" should
# match on "Ana", "start" and "painting", not on every turn that says "did" (measured on the
# conversation benchmark). Lucene's own English stop words are dropped by the analyzer.
_QUESTION_WORDS_TEXT = """
    what when where which who whom whose why how did do does doing done has have having had
    was were is are am be been being would could should can may might will shall must i me
    my mine you your yours he him his she her hers we us our ours they them their theirs
    its about any some anything something ever also just really very much many more most so
    than too tell say said know think like get got go going went make made one ones thing
    things kind sort way lot
"""
QUESTION_WORDS = frozenset(_QUESTION_WORDS_TEXT.split())
# The English stop words of Lucene's StandardAnalyzer, which the `standard-folding` analyzer drops.
_LUCENE_STOP_WORDS_TEXT = """
    a an and are as at be but by for if in into is it no not of on or such that the their then
    there these they this to was will with
"""
LUCENE_STOP_WORDS = frozenset(_LUCENE_STOP_WORDS_TEXT.split())


def free_text_query(text: str, drop_question_words: bool = False) -> str | None:
    """A free-text query as OR of its quoted words; None when it has no word at all. With
    `drop_question_words`, words of QUESTION_WORDS go unless nothing else is left."""
    words = query_words(text, drop_question_words)
    return " OR ".join(quote_term(word) for word in words) if words else None


def query_words(text: str, drop_question_words: bool = False) -> list[str]:
    """The distinct words of a free-text query, at most MAX_KEYWORDS (see free_text_query)."""
    words = list(dict.fromkeys(_WORD.findall(text)))
    if drop_question_words:
        topical = [word for word in words if word.lower() not in QUESTION_WORDS]
        words = topical or words
    return words[:MAX_KEYWORDS]


def searched_word_count(text: str) -> int:
    """How many words of a recall query the index can match (question and stop words left
    out), at least 1: the denominator of a keyword hit's word coverage."""
    words = query_words(text, drop_question_words=True)
    return max(1, sum(1 for word in words if word.lower() not in LUCENE_STOP_WORDS))


@dataclass(frozen=True)
class _Folded:
    text: str
    origin: Sequence[int]  # index in the original text of each folded character


def _fold(text: str) -> _Folded:
    """Lower-case, accent-free text with a map back to the original positions."""
    if text.isascii():
        return _Folded(text.lower(), range(len(text)))
    chars: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        base = _fold_char(char)
        chars.append(base)
        origin.extend([index] * len(base))
    return _Folded("".join(chars), origin)


@lru_cache(maxsize=4096)
def _fold_char(char: str) -> str:
    decomposed = unicodedata.normalize("NFKD", char)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower() or char


def match_spans(text: str, terms: Sequence[str]) -> list[tuple[int, int]]:
    """Non-overlapping (start, end) spans of `terms` in `text`, ignoring case and accents.

    Words match whole words; terms with CJK or other non-spaced scripts match as substrings.
    """
    folded = _fold(text)
    spans: list[tuple[int, int]] = []
    for term in terms:
        needle = _fold(term.strip()).text
        if not needle:
            continue
        escaped = re.escape(needle)
        bounded = needle[0].isascii() and needle[-1].isascii()
        pattern = rf"(?<!\w){escaped}(?!\w)" if bounded else escaped
        for found in re.finditer(pattern, folded.text):
            start = folded.origin[found.start()]
            end = folded.origin[found.end() - 1] + 1
            spans.append((start, end))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start < merged[-1][1]:
            continue
        merged.append((start, end))
    return merged


def excerpt(text: str, terms: Sequence[str], max_chars: int = EXCERPT_CHARS) -> str:
    """≤ `max_chars` characters around the densest cluster of matches, HTML-escaped, each match
    wrapped in `<mark>…</mark>`, with `…` where the text was cut."""
    spans = match_spans(text, terms)
    if not spans:
        window = (0, min(len(text), max_chars))
    else:
        window = _best_window(spans, len(text), max_chars)
    start, end = window
    start, end = _snap_to_words(text, start, end, max_chars)
    pieces: list[str] = [ELLIPSIS] if start > 0 else []
    cursor = start
    for span_start, span_end in spans:
        if span_start < start or span_end > end:
            continue
        pieces.append(html.escape(text[cursor:span_start]))
        pieces.append(f"<mark>{html.escape(text[span_start:span_end])}</mark>")
        cursor = span_end
    pieces.append(html.escape(text[cursor:end]))
    if end < len(text):
        pieces.append(ELLIPSIS)
    return "".join(pieces)


def _best_window(spans: list[tuple[int, int]], length: int, size: int) -> tuple[int, int]:
    """The window of `size` characters that holds the most whole matches (first one on ties),
    with the first match of it placed a little after the start for context."""
    best_start, best_count = spans[0][0], 0
    for index, (first_start, _) in enumerate(spans):
        count = sum(1 for _, end in spans[index:] if end <= first_start + size)
        if count > best_count:
            best_start, best_count = first_start, count
    lead = min(size // 4, best_start)
    start = max(0, min(best_start - lead, length - size))
    return start, min(length, start + size)


def _snap_to_words(text: str, start: int, end: int, size: int) -> tuple[int, int]:
    """Move cut points to whitespace when one is near, never growing past `size`."""
    if start > 0:
        space = text.find(" ", start, min(end, start + 20))
        if space != -1:
            start = space + 1
    if end < len(text):
        space = text.rfind(" ", max(start, end - 20), end)
        if space != -1:
            end = space
    return start, min(end, start + size)
