"""The graph walk's bookkeeping (docs/contract.md §5) as a pure function of the rows Neo4j
returns: shortest paths from the nearest seed, and seeds reached from stronger seeds."""

from __future__ import annotations

from typing import Any

from service.core.read.walk import Walk


def row(from_id: str, to_id: str, weight: float | None = 0.5) -> list[Any]:
    """A walk row: [from id, id, key, type, tags, score, created ms, weight, superseded]; keys
    are the ids in upper case."""
    return [from_id, to_id, to_id.upper(), "note", [], 50.0, 1000, weight, False]


def walk(seeds: dict[str, float], budget: int = 100, max_hops: int = 2) -> Walk:
    return Walk(seeds, {seed_id: seed_id.upper() for seed_id in seeds}, budget, max_hops)


def summary(found: dict[str, Any]) -> dict[str, tuple[int, list[str], float, str]]:
    return {
        memory_id: (r.hops, r.path, round(r.path_value, 3), r.origin)
        for memory_id, r in sorted(found.items())
    }


def test_a_memory_takes_its_shortest_path_and_the_best_value_among_equally_short_ones() -> None:
    graph = walk({"a": 0.9, "b": 0.4})
    frontier = graph.step([row("a", "x", 0.2), row("b", "x", 0.9), row("a", "y")], 1)
    graph.step([row("x", "z"), row("y", "x")], 2)
    assert frontier == ["x", "y"]
    assert summary(graph.results()) == {
        "x": (1, ["B", "X"], 0.36, "b"),
        "y": (1, ["A", "Y"], 0.45, "a"),
        "z": (2, ["B", "X", "Z"], 0.18, "b"),
    }


def test_a_seed_linked_to_a_stronger_seed_carries_that_path_and_a_weaker_one_does_not() -> None:
    graph = walk({"strong": 0.9, "weak": 0.3})
    graph.step([row("strong", "weak", 0.9), row("weak", "strong", 0.9)], 1)
    assert summary(graph.results()) == {"weak": (1, ["STRONG", "WEAK"], 0.81, "strong")}


def test_a_seed_two_links_from_a_stronger_seed_carries_the_two_hop_path() -> None:
    graph = walk({"first": 1.0, "second": 0.5})
    frontier = graph.step([row("first", "mid", 0.8), row("second", "other")], 1)
    graph.step([row("mid", "second", 0.5)], 2)
    assert frontier == ["mid", "other"]
    assert summary(graph.results())["second"] == (2, ["FIRST", "MID", "SECOND"], 0.4, "first")


def test_a_seed_keeps_its_shortest_evidence_over_a_longer_stronger_one() -> None:
    graph = walk({"top": 1.0, "mid": 0.8, "low": 0.2})
    graph.step([row("mid", "low", 0.1), row("top", "via", 1.0)], 1)
    graph.step([row("via", "low", 1.0)], 2)
    assert summary(graph.results())["low"] == (1, ["MID", "LOW"], 0.08, "mid")


def test_the_budget_bounds_the_memories_reached_but_not_the_seeds_evidence() -> None:
    graph = walk({"a": 1.0, "b": 0.5}, budget=3)
    graph.step([row("a", "x"), row("a", "y"), row("a", "b")], 1)
    assert sorted(graph.results()) == ["b", "x"]


def test_a_seed_reached_through_a_weaker_seed_carries_the_path_through_it() -> None:
    # first - second - third, all seeds: third is stronger than second, so second alone cannot
    # explain it, but first reaches it through second.
    graph = walk({"first": 1.0, "third": 0.8, "second": 0.5})
    graph.step([row("first", "second", 0.9), row("second", "third", 0.5)], 1)
    graph.step([], 2)
    found = summary(graph.results())
    assert found["second"] == (1, ["FIRST", "SECOND"], 0.9, "first")
    assert found["third"] == (2, ["FIRST", "SECOND", "THIRD"], 0.45, "first")


def test_evidence_through_seeds_stops_at_max_hops() -> None:
    graph = walk({"first": 1.0, "third": 0.8, "second": 0.5}, max_hops=1)
    graph.step([row("first", "second", 0.9), row("second", "third", 0.5)], 1)
    assert sorted(graph.results()) == ["second"]
