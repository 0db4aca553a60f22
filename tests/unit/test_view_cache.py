"""retrieve_context's views held between retrieves, each at the graph version it was read at."""

from __future__ import annotations

from typing import Any, cast

from service.core.read.view_cache import LINK_BYTES, VIEW_BYTES, ViewCache, view_bytes
from service.core.results import MemoryView

V1 = ("token-1", 3, 2, 900)
V2 = ("token-2", 3, 2, 900)


def view(memory_id: str, content: str = "text", links: int = 0, **fields: Any) -> MemoryView:
    link = {"key": "to", "summary": "sum"}
    shown: dict[str, Any] = {
        "id": memory_id, "key": memory_id, "title": "", "summary": "", "content": content,
        "tags": [], "metadata": {}, "links": [link] * links, **fields,
    }  # fmt: skip
    return cast(MemoryView, shown)


def test_a_view_is_served_only_at_the_version_and_for_the_link_order_it_was_read_at() -> None:
    cache = ViewCache(100_000)
    cache.put("ns", V1, {"a": view("a"), "b": view("b")}, sort=True)
    assert list(cache.get("ns", V1, ["b", "a", "c"], sort=True)) == ["b", "a"]
    assert cache.get("ns", V2, ["a", "b"], sort=True) == {}
    assert cache.get("ns", V1, ["a"], sort=False) == {}
    assert cache.get("other", V1, ["a"], sort=True) == {}
    assert cache.counts == {"held": 2, "read": 5}


def test_a_view_read_again_replaces_the_one_held() -> None:
    cache = ViewCache(100_000)
    cache.put("ns", V1, {"a": view("a", "old")}, sort=True)
    cache.put("ns", V2, {"a": view("a", "new")}, sort=True)
    assert cache.get("ns", V1, ["a"], sort=True) == {}
    assert cache.get("ns", V2, ["a"], sort=True)["a"]["content"] == "new"
    assert cache.used == view_bytes(view("a", "new"))


def test_the_least_recently_used_go_first_beyond_the_budget() -> None:
    one = view_bytes(view("a"))
    cache = ViewCache(2 * one)
    cache.put("ns", V1, {"a": view("a"), "b": view("b")}, sort=True)
    assert list(cache.get("ns", V1, ["a"], sort=True)) == ["a"]  # b is now the oldest
    cache.put("ns", V1, {"c": view("c")}, sort=True)
    assert list(cache.get("ns", V1, ["a", "b", "c"], sort=True)) == ["a", "c"]
    assert cache.used == 2 * one


def test_a_view_bigger_than_the_budget_is_not_held() -> None:
    cache = ViewCache(VIEW_BYTES + 100)
    cache.put("ns", V1, {"big": view("big", "x" * 200), "s": view("s")}, sort=True)
    assert list(cache.get("ns", V1, ["big", "s"], sort=True)) == ["s"]


def test_a_zero_budget_holds_nothing() -> None:
    cache = ViewCache(0)
    cache.put("ns", V1, {"a": view("a")}, sort=True)
    assert (cache.get("ns", V1, ["a"], sort=True), cache.used) == ({}, 0)


def test_a_view_s_size_counts_its_texts_metadata_tags_and_links() -> None:
    shown = view("k", "content", links=2, title="t", summary="sum", tags=["ab", "c"],
                 metadata={"x": 1})  # fmt: skip
    texts = len("content") + len("t") + len("sum") + len("k") + len('{"x": 1}') + len("abc")
    assert view_bytes(shown) == VIEW_BYTES + texts + 2 * (LINK_BYTES + len("to") + len("sum"))
