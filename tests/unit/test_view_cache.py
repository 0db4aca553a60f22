"""retrieve_context's views held between retrieves, each valid at the link graph snapshot it
was read at and at those advanced from it by writes that did not touch it."""

from __future__ import annotations

from sys import getsizeof
from typing import Any, cast

from service.core.read.view_cache import LINK_BYTES, VIEW_BYTES, ViewCache, deep_size, view_bytes
from service.core.results import MemoryView
from service.stores.link_graph import GraphWrite, LinkGraph


def walk_row(memory_id: str, key: str) -> list[Any]:
    return [memory_id, key, "note", [], 50.0, 1000, False]


def loaded(version: str) -> LinkGraph:
    """A snapshot as a load reads it: a, b, c, d, with a link a -> b."""
    memories = [walk_row(i, f"K-{i}") for i in "abcd"]
    return LinkGraph.build((version, 4, 1, 400), memories, [["a", "b", 0.5]])


V1 = loaded("token-1")
V2 = loaded("token-2")


def view(memory_id: str, content: str = "text", links: int = 0, **fields: Any) -> MemoryView:
    link = {"key": "to", "summary": "sum"}
    shown: dict[str, Any] = {
        "id": memory_id, "key": memory_id, "title": "", "summary": "", "content": content,
        "tags": [], "metadata": {}, "supersedes": [], "links": [link] * links, **fields,
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


def test_a_write_of_this_process_leaves_valid_the_views_of_memories_it_did_not_touch() -> None:
    first, again = loaded("token-1"), loaded("token-1")  # loaded twice: two lineages
    cache = ViewCache(100_000)
    cache.put("ns", first, {i: view(i) for i in "abcd"}, sort=True)
    # a rewritten: its view and b's (its neighbour, whose links show a) are read again.
    rewritten = first.advanced(GraphWrite(first.version, ("t2", 4, 1, 410), walk_row("a", "K-a2")))
    assert rewritten is not None
    assert list(cache.get("ns", rewritten, list("abcd"), sort=True)) == ["c", "d"]
    # then c linked to d: both are read again; a view read at the step before is not held.
    cache.put("ns", first, {"a": view("a")}, sort=True)
    linked = rewritten.advanced(
        GraphWrite(rewritten.version, ("t3", 4, 2, 410), None, "c", [("d", [0.4])])
    )
    assert linked is not None
    assert list(cache.get("ns", linked, list("abcd"), sort=True)) == []
    cache.put("ns", linked, {i: view(i) for i in "abcd"}, sort=True)
    assert list(cache.get("ns", linked, list("abcd"), sort=True)) == list("abcd")
    assert cache.get("ns", again, list("abcd"), sort=True) == {}


def test_without_a_version_nothing_is_held_and_every_view_counts_as_read() -> None:
    cache = ViewCache(100_000)
    cache.put("ns", V1, {"a": view("a")}, sort=True)
    cache.put("ns", None, {"b": view("b")}, sort=True)
    assert cache.get("ns", None, ["a", "b"], sort=True) == {}
    assert (cache.counts, cache.used) == ({"held": 0, "read": 2}, view_bytes(view("a")))


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


def test_a_view_bigger_than_the_budget_is_not_held_and_drops_the_one_it_replaces() -> None:
    cache = ViewCache(VIEW_BYTES + 500)
    cache.put("ns", V1, {"big": view("big"), "s": view("s")}, sort=True)
    cache.put("ns", V2, {"big": view("big", "x" * 500)}, sort=True)
    assert list(cache.get("ns", V1, ["big", "s"], sort=True)) == ["s"]
    assert cache.used == view_bytes(view("s"))


def test_a_zero_budget_holds_nothing() -> None:
    cache = ViewCache(0)
    cache.put("ns", V1, {"a": view("a")}, sort=True)
    assert (cache.get("ns", V1, ["a"], sort=True), cache.used) == ({}, 0)


def test_a_view_s_size_counts_its_strings_as_stored_its_metadata_whole_and_its_links() -> None:
    shown = view("k", "日本😀", links=2, title="t", summary="sum", tags=["ab", "c"],
                 supersedes=["old"], metadata={"x": [1, "y"]})  # fmt: skip
    strings = sum(map(getsizeof, ["k", "t", "sum", "日本😀", "ab", "c", "old"]))
    metadata = getsizeof({"x": 0}) + getsizeof("x") + getsizeof([1, "y"]) + getsizeof(1)
    metadata += getsizeof("y")
    links = 2 * (LINK_BYTES + getsizeof("to") + getsizeof("sum"))
    assert view_bytes(shown) == VIEW_BYTES + strings + metadata + links
    wide = view_bytes(view("k", "😀" * 100)) - view_bytes(view("k", "a" * 100))
    assert wide >= 300  # four bytes a character, not one
    assert deep_size({"x": [1, "y"]}) == metadata
