"""The in-process link graph (service/stores/link_graph.py) as pure functions: the strongest
weight between two memories, neighbours by key, the walk's limits and pruning; and the guard
that every statement writing a memory's walk fields or a LINK replaces the namespace's
graph_version token, which is what makes a snapshot stale."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any

from service.stores.cypher_library import CypherLibrary
from service.stores.link_graph import LinkGraph
from service.stores.link_graphs import LinkGraphs

CYPHER = Path(__file__).resolve().parents[2] / "cypher"
# Writes that change neither a memory's walk fields (key, type, tags, score, created_at,
# superseded_by) nor a LINK: access times, vector and context states, locks, tombstones,
# SUPERSEDES relationships, a migration's record. None changes what retrieve_context's views
# show either (service/core/read/view_cache.py): every other write moves the version they are
# held at, and after a schema migration every namespace's version moves (graph_versions_move).
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
    "vector_storage_adopt",
}
WRITING = re.compile(r"^\s*(SET|DELETE|DETACH DELETE|REMOVE|MERGE|CREATE)\b", re.MULTILINE)


def memory(memory_id: str, key: str, superseded: bool = False) -> list[Any]:
    return [memory_id, key, "note", ["t"], 50.0, 1000, superseded]


GRAPH = LinkGraph.build(
    ("v7", 4, 3, 100),
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
    assert GRAPH.neighbours == {  # a link without weight is valued at the default weight, 0.5
        "a": [("K-b", "b", 0.9, 0.9), ("K-c", "c", None, 0.5)],
        "b": [("K-a", "a", 0.9, 0.9)],
        "c": [("K-a", "a", None, 0.5), ("K-d", "d", 0.3, 0.3)],
        "d": [("K-c", "c", 0.3, 0.3)],
    }
    assert GRAPH.size == 4 + 6


def test_a_snapshot_keeps_one_string_per_memory_id_whatever_the_rows_held() -> None:
    ids = ["memory-one", "memory-two"]
    link_ends = ["".join(["memory-", name]) for name in ("two", "one")]  # equal, not the same
    graph = LinkGraph.build((), [memory(i, i.upper()) for i in ids], [[*link_ends, 0.5]])

    held = {id(memory_id) for memory_id in graph.fields}
    neighbour_ids = [n for found in graph.neighbours.values() for _, n, *_ in found]

    assert sorted(neighbour_ids) == ids
    assert {id(n) for n in neighbour_ids} == held
    assert not {id(end) for end in link_ends} & held


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
        if ".graph_version = randomUUID()" in path.read_text()
    }
    assert writing - NOT_GRAPH_WRITES == moving
    # The same writes mark contexts pending, less those that mark memories for a vector storage
    # (a full reconcile's missing vectors, an adoption).
    # and the move of every version after a migration, which writes no memory.
    without_vectors = {"context_mark_missing", "vector_storage_adopt"}
    marking = set(CypherLibrary().marking_context) - without_vectors
    assert moving == marking | {"graph_versions_move"}


class Namespaces:
    """Namespaces' graphs as the store would read them: a version token and counters per
    namespace, and the token the second version read of a load sees (a write meanwhile)."""

    def __init__(self) -> None:
        self.tokens: dict[str, str] = {}
        self.sizes: dict[str, int] = {}
        self.token_after_load: str | None = None
        self.loads = 0

    def row(self, namespace: str) -> list[dict[str, Any]]:
        size = self.sizes.get(namespace, 1)
        token = self.tokens.get(namespace, "t0")
        return [{"version": token, "memories": size, "links": 0, "size_bytes": 10}]

    async def probe(self, query: str, /, **params: Any) -> list[dict[str, Any]]:
        assert query == "graph_version"
        return self.row(params["namespace"])

    async def read_together(self, queries: Any) -> list[list[dict[str, Any]]]:
        self.loads += 1
        namespace = queries[0][1]["namespace"]
        before = self.row(namespace)
        if self.token_after_load is not None:
            self.tokens[namespace] = self.token_after_load
        memories = [
            memory(f"{namespace}-{i}", f"k{i}") for i in range(self.sizes.get(namespace, 1))
        ]
        return [before, [{"memories": memories}], [{"links": []}], self.row(namespace)]


async def settled(graphs: LinkGraphs) -> None:
    """Until the loads in flight are done."""
    for _ in range(100):
        await asyncio.sleep(0)
    await asyncio.gather(*graphs._loading.values())  # pyright: ignore[reportPrivateUsage]


async def test_a_snapshot_serves_walks_only_while_its_version_is_the_namespaces() -> None:
    source = Namespaces()
    graphs = LinkGraphs(source.probe, source.read_together, capacity=100)
    assert await graphs.current("a") is None
    await settled(graphs)
    held = await graphs.current("a")
    assert held is not None and sorted(held.fields) == ["a-0"]
    source.tokens["a"] = "t1"
    assert await graphs.current("a") is None
    assert graphs.counts == {"current": 1, "stale": 2, "loaded": 1, "discarded": 0, "advanced": 0}


async def test_a_load_that_a_write_overtook_is_discarded_and_the_next_waits_longer() -> None:
    source = Namespaces()
    source.token_after_load = "t1"
    graphs = LinkGraphs(source.probe, source.read_together, capacity=100)
    assert await graphs.current("a") is None
    await settled(graphs)
    assert await graphs.current("a") is None
    assert (graphs.counts["discarded"], graphs.held, source.loads) == (1, 0, 1)
    state = graphs._namespaces["a"]  # pyright: ignore[reportPrivateUsage]
    assert state.backoff == 2
    assert state.next_load - time.monotonic() > 0.9  # at least twice the 0.5 s pause


async def test_the_least_recently_used_snapshots_go_when_the_capacity_is_reached() -> None:
    source = Namespaces()
    source.sizes = {"a": 40, "b": 40, "c": 40, "huge": 101}
    graphs = LinkGraphs(source.probe, source.read_together, capacity=100)
    for namespace in ("a", "b", "huge"):
        await graphs.current(namespace)
        await settled(graphs)
    assert await graphs.current("a") is not None  # a is now more recent than b
    await graphs.current("c")
    await settled(graphs)
    assert [await graphs.current(n) is not None for n in ("a", "b", "c", "huge")] == [
        True,
        False,
        True,
        False,
    ]
    assert (graphs.held, source.loads) == (80, 3)
