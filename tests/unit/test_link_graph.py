"""The in-process link graph (service/stores/link_graph.py) as pure functions: the strongest
weight between two memories, neighbours by key, the walk's limits and pruning; and the guard
that every statement writing a memory's walk fields or a LINK moves the namespace's
graph_version, which is what makes a snapshot stale."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from service.stores.link_graph import LinkGraph

CYPHER = Path(__file__).resolve().parents[2] / "cypher"
# Writes that change neither a memory's walk fields (key, type, tags, score, created_at,
# superseded_by) nor a LINK: access times, vector and context states, locks, tombstones,
# SUPERSEDES relationships, migrations.
NOT_GRAPH_WRITES = {
    "context_claim",
    "context_mark_missing",
    "context_mark_synced",
    "import_supersessions",
    "memory_find_for_save",
    "memory_find_many",
    "memory_get",
    "memory_lock_ref",
    "migration_record",
    "tombstones_clear",
    "vector_mark_missing",
    "vector_mark_synced",
}
WRITING = re.compile(r"^\s*(SET|DELETE|DETACH DELETE|REMOVE|MERGE|CREATE)\b", re.MULTILINE)


def memory(memory_id: str, key: str, superseded: bool = False) -> list[Any]:
    return [memory_id, key, "note", ["t"], 50.0, 1000, superseded]


GRAPH = LinkGraph.build(
    7,
    [memory("a", "K-a"), memory("b", "K-b"), memory("c", "K-c", True), memory("d", "K-d")],
    [
        ["a", "b", 0.2],
        ["b", "a", 0.9],  # the other direction, stronger
        ["a", "c", None],
        ["c", "a", None],  # no weight either way: none
        ["c", "d", None],
        ["d", "c", 0.3],  # a weight beats no weight
        ["a", "gone", 1.0],  # an end outside the snapshot
    ],
)


def test_two_memories_are_neighbours_once_with_the_strongest_weight_of_their_links() -> None:
    assert GRAPH.neighbours == {
        "a": [("K-b", "b", 0.9), ("K-c", "c", None)],
        "b": [("K-a", "a", 0.9)],
        "c": [("K-a", "a", None), ("K-d", "d", 0.3)],
        "d": [("K-c", "c", 0.3)],
    }
    assert GRAPH.size == 4 + 6


def test_the_first_step_is_ordered_by_seed_then_key_and_cut_at_the_limit() -> None:
    found = GRAPH.walk(["d", "a", "x"], {"a": 1.0, "d": 0.5}, False, 3, 10, [], None)
    assert found == {
        "seeds": [["d", "K-d"], ["a", "K-a"]],
        "first": [
            ["a", "b", "K-b", "note", ["t"], 50.0, 1000, 0.9, False],
            ["a", "c", "K-c", "note", ["t"], 50.0, 1000, None, True],
            ["d", "c", "K-c", "note", ["t"], 50.0, 1000, 0.3, True],
        ],
        "second": [],
    }


def test_the_second_step_leaves_seeds_out_and_prunes_below_the_value_unless_kept() -> None:
    # From seed b: a (0.9). From a: b is a seed's neighbour again, c valued 0.9 x 0.5 = 0.45.
    found = GRAPH.walk(["b"], {"b": 1.0}, True, 10, 10, [], 0.5)
    assert [(r[0], r[1]) for r in found["first"]] == [("b", "a")]
    assert [(r[0], r[1]) for r in found["second"]] == [("a", "b")]  # 0.81 >= 0.5
    kept = GRAPH.walk(["b"], {"b": 1.0}, True, 10, 10, ["c"], 0.5)
    assert [(r[0], r[1]) for r in kept["second"]] == [("a", "b"), ("a", "c")]
    unpruned = GRAPH.walk(["b"], {"b": 1.0}, True, 10, 1, [], None)
    assert [(r[0], r[1]) for r in unpruned["second"]] == [("a", "b")]


def test_neighbours_of_a_frontier_are_ordered_by_memory_then_key() -> None:
    found = GRAPH.neighbours_of(["c", "b", "c", "x"], 3)
    assert [(r[0], r[1]) for r in found["neighbours"]] == [("b", "a"), ("c", "a"), ("c", "d")]


def test_every_statement_that_writes_the_graph_moves_its_version() -> None:
    writing = {
        path.stem
        for path in CYPHER.glob("*.cypher")
        if WRITING.search(re.sub(r"//.*", "", path.read_text()))
    }
    moving = {
        path.stem
        for path in CYPHER.glob("*.cypher")
        if ".graph_version = coalesce(" in path.read_text()
    }
    assert writing - NOT_GRAPH_WRITES == moving
    assert moving == {
        "import_dangling_supersessions",
        "link_batch_upsert",
        "link_delete",
        "link_import",
        "link_upsert",
        "memory_batch_upsert",
        "memory_delete",
        "memory_supersede",
        "memory_upsert",
    }
