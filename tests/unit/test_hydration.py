"""memory_hydrate rows become client views: one row per memory, links built, filtered, then
ordered."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from service.core.hydration import LinkFilter, hydrated_rows, views_in_order

CREATED = datetime(2026, 1, 10, 12, 0, tzinfo=UTC)


def row(memory_id: str, links: list[list[Any]]) -> dict[str, Any]:
    memory = {"id": memory_id, "key": memory_id, "namespace": "default", "type": "note",
              "content": "text", "created_at": CREATED, "updated_at": CREATED}  # fmt: skip
    return {"memory": memory, "links": links}


LINKS = [
    ["id-a", "a", "related", None, 0.5, 40.0, "A", 1768046400123],
    ["id-b", "b", "cites", "term", 0.9, None, None, 1768046400456],
    ["id-c", "c", "related", None, 0.2, 100.0, "C", 1768046401000],
]


def test_links_become_client_links_sorted_by_combined_score() -> None:
    (view,) = views_in_order([row("m", LINKS)], ["m"], sort=True)

    assert view["links"] == [
        {"id": "id-b", "key": "b", "type": "cites", "term": "term", "weight": 0.9, "score": None,
         "combined_score": 45.0, "summary": None, "created_at": "2026-01-10T12:00:00.456Z"},
        {"id": "id-a", "key": "a", "type": "related", "term": None, "weight": 0.5, "score": 40.0,
         "combined_score": 20.0, "summary": "A", "created_at": "2026-01-10T12:00:00.123Z"},
        {"id": "id-c", "key": "c", "type": "related", "term": None, "weight": 0.2, "score": 100.0,
         "combined_score": 20.0, "summary": "C", "created_at": "2026-01-10T12:00:01.000Z"},
    ]  # fmt: skip


def test_unsorted_links_keep_creation_order_and_filters_apply_first() -> None:
    rows = [row("m", LINKS), row("n", [])]
    only_related = LinkFilter(types=("related",), min_weight=0.3)

    first, second = views_in_order(rows, ["n", "missing", "m"], sort=False)
    (filtered,) = views_in_order(rows, ["m"], sort=True, link_filter=only_related)

    assert (first["id"], second["id"]) == ("n", "m")
    assert [link["key"] for link in second["links"]] == ["a", "b", "c"]
    assert [link["key"] for link in filtered["links"]] == ["a"]


def test_the_statement_s_one_row_becomes_a_row_per_memory_in_its_order() -> None:
    m, n = row("m", LINKS), row("n", [])
    statement_row: dict[str, Any] = {"memories": [[m["memory"], LINKS], [n["memory"], []]]}

    assert hydrated_rows([statement_row]) == [m, n]
    assert hydrated_rows([{"memories": []}]) == []


def test_a_link_deleted_while_it_was_read_is_left_out() -> None:
    deleted = ["id-d", "d", None, None, None, 40.0, "D", None]  # read without its properties
    (view,) = views_in_order([row("m", [*LINKS, deleted])], ["m"], sort=True)
    assert [link["key"] for link in view["links"]] == ["b", "a", "c"]
