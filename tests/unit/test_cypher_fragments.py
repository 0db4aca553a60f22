"""`// @include NAME` lines of the Cypher library stand for cypher/fragments/NAME.cypher."""

from __future__ import annotations

import pytest

from service.stores.cypher_library import CYPHER_ROOT, CypherLibrary, with_fragments


def test_an_include_line_becomes_the_fragment_at_its_indent() -> None:
    text = "MATCH (m)\nCALL (m) {\n  // @include mark\n}\nRETURN m"
    assert with_fragments(text, {"mark": "SET m.x = 1\nSET m.y = 2\n"}) == (
        "MATCH (m)\nCALL (m) {\n  SET m.x = 1\n  SET m.y = 2\n}\nRETURN m"
    )


def test_an_unknown_fragment_fails_fast() -> None:
    with pytest.raises(KeyError, match="no Cypher fragment named 'nope'"):
        with_fragments("// @include nope", {})


def test_the_library_leaves_no_include_unexpanded_and_no_fragment_as_a_statement() -> None:
    library = CypherLibrary()
    names = [path.stem for path in CYPHER_ROOT.glob("*.cypher")]
    assert [name for name in names if "@include" in library.text(name)] == []
    assert "COUNT { (n)-[:LINK]-() } <= 5" in library.text("memory_upsert")
    with pytest.raises(KeyError, match="no Cypher statement named 'mark_text_readers'"):
        library.text("mark_text_readers")


def test_the_memory_filter_is_written_once_and_included_by_every_statement_that_filters() -> None:
    library = CypherLibrary()
    paths = list(CYPHER_ROOT.glob("*.cypher"))
    filtering = sorted(path.stem for path in paths if "$min_score" in library.text(path.stem))
    assert filtering == [
        "search_context_fulltext",
        "search_fulltext",
        "search_kv",
        "search_lexical",
    ]
    assert [path.stem for path in paths if "$min_score" in path.read_text()] == []


def test_the_statements_that_mark_contexts_pending_are_the_writes_that_change_them() -> None:
    assert sorted(CypherLibrary().marking_context) == [
        "context_mark_missing",
        "import_dangling_supersessions",
        "link_batch_upsert",
        "link_delete",
        "link_import",
        "link_upsert",
        "memory_batch_upsert",
        "memory_delete",
        "memory_supersede",
        "memory_upsert",
        "vector_storage_adopt",
    ]
