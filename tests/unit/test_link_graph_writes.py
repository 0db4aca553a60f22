"""A link graph snapshot advanced by the writes of this process (service/stores/link_graph.py):
after any sequence of saves and links, exactly what a load at the new version would read; and
the store advances its snapshot only from the version the write started at."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from service.stores import layered_map
from service.stores.link_graph import GraphWrite, LinkGraph
from service.stores.link_graphs import MAX_VERSIONS_PASSED, LinkGraphs

Memories = dict[str, list[Any]]  # id -> [key, type, tags, score, created ms, superseded]
Links = dict[tuple[str, str, str], Any]  # (from, to, type) -> weight


def rows(memories: Memories, links: Links) -> tuple[list[list[Any]], list[list[Any]]]:
    """The rows of link_graph_memories and link_graph_links."""
    return (
        [[memory_id, *fields] for memory_id, fields in memories.items()],
        [[a, b, weight] for (a, b, _), weight in links.items()],
    )


def pairs_of(links: Links, source: str, targets: list[str]) -> list[tuple[str, list[Any]]]:
    """What link_upsert returns: each target once, with every link's weight between the two."""
    return [
        (t, [w for (a, b, _), w in links.items() if {a, b} == {source, t}])
        for t in dict.fromkeys(targets)
    ]


def random_write(rng: random.Random, memories: Memories, links: Links, version: int) -> GraphWrite:
    """A save (a memory, new or rewritten, with links of its own) or a link, applied to
    `memories` and `links`, as its statements would report it."""
    ids = list(memories)
    before = (f"v{version}", 0, 0, 0)
    after = (f"v{version + 1}", 0, 0, 0)
    memory = None
    if rng.random() < 0.7:  # a save
        source = rng.choice([*ids, f"new-{version}"])
        key = f"k{rng.randrange(40)}"  # a key may change, and order its neighbours anew
        memories[source] = [key, "note", ["t"], rng.choice([None, 10.0]), version, False]
        memory = [source, *memories[source]]
        ids = list(memories)
    else:
        source = rng.choice(ids)
    targets = [rng.choice(ids) for _ in range(rng.randrange(0, 4))]  # self-links too
    for target in targets:
        links[(source, target, rng.choice(["related", "cites"]))] = rng.choice([None, 0.1, 0.9])
    return GraphWrite(before, after, memory, source, pairs_of(links, source, targets))


@pytest.mark.parametrize("min_top", [layered_map.MIN_TOP, 1])
def test_a_snapshot_advanced_by_any_writes_is_what_a_load_would_read(
    min_top: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the default top layers (never folded in graphs this small) and with top layers
    folded into a new base every few writes."""
    monkeypatch.setattr(layered_map, "MIN_TOP", min_top)
    rng = random.Random(7)
    for _ in range(200):
        memories: Memories = {
            f"m{i}": [f"k{rng.randrange(40)}", "note", [], 50.0, i, rng.random() < 0.2]
            for i in range(8)
        }
        links: Links = {
            (f"m{rng.randrange(8)}", f"m{rng.randrange(8)}", "related"): rng.choice([None, 0.5])
            for _ in range(10)
        }
        graph = LinkGraph.build(("v0", 0, 0, 0), *rows(memories, links))
        for version in range(8):
            write = random_write(rng, memories, links, version)
            advanced = graph.advanced(write)
            assert advanced is not None
            graph = advanced
            loaded = LinkGraph.build(write.after, *rows(memories, links))
            assert graph.fields == loaded.fields
            assert graph.superseded == loaded.superseded
            assert graph.neighbours == loaded.neighbours
            assert (graph.size, graph.version, graph.step) == (
                loaded.size,
                write.after,
                version + 1,
            )


def test_a_write_naming_a_memory_the_snapshot_lacks_advances_nothing() -> None:
    graph = LinkGraph.build(("v0", 1, 0, 0), [["a", "K-a", "note", [], None, 1, False]], [])
    write = GraphWrite(("v0", 1, 0, 0), ("v1", 1, 1, 0), None, "a", [("elsewhere", [0.5])])
    assert graph.advanced(write) is None
    assert graph.touched == {}


def test_writes_of_one_transaction_join_only_when_the_second_starts_where_the_first_ended() -> None:
    saved = GraphWrite(("v0",), ("v1",), ["a", "K", "note", [], None, 1, False])
    linked = GraphWrite(("v1",), ("v2",), None, "a", [("b", [0.5])])
    assert saved.then(linked) == GraphWrite(("v0",), ("v2",), saved.memory, "a", linked.pairs)
    assert saved.then(GraphWrite(("v9",), ("v10",), None, "a", [])) is None


class Store:
    """A namespace of two memories, a and b, as the store would read it; a load can be held
    back until `release` is set."""

    def __init__(self) -> None:
        self.version: dict[str, Any] = {"version": "v0", "memories": 2, "links": 0, "size_bytes": 0}
        self.release = asyncio.Event()
        self.release.set()

    async def probe(self, query: str, /, **params: Any) -> list[dict[str, Any]]:
        return [dict(self.version)]

    async def read_together(self, queries: Any) -> list[list[dict[str, Any]]]:
        version = dict(self.version)
        await self.release.wait()
        memories: list[list[Any]] = [
            ["a", "K-a", "note", [], None, 1, False],
            ["b", "K-b", "note", [], None, 2, False],
        ]
        return [[version], [{"memories": memories}], [{"links": []}], [version]]

    def link(self, token: str) -> GraphWrite:
        """a linked to b, from the version now (the store moves to `token`)."""
        before = tuple(self.version.values())
        self.version.update(version=token, links=self.version["links"] + 1)
        return GraphWrite(before, tuple(self.version.values()), None, "a", [("b", [1.0])])


async def loaded(graphs: LinkGraphs, namespace: str = "ns") -> None:
    assert await graphs.current(namespace) is None
    await next(iter(graphs._loading.values()))  # pyright: ignore[reportPrivateUsage]


async def test_the_store_advances_its_snapshot_only_from_the_version_a_write_started_at() -> None:
    store = Store()
    graphs = LinkGraphs(store.probe, store.read_together, capacity=100)
    await loaded(graphs)
    graphs.advance("ns", GraphWrite(("v9", 2, 0, 0), ("v10", 2, 1, 0), None, "a", [("b", [1])]))
    assert graphs.counts["advanced"] == 0  # another write came between: stale, as before
    graphs.advance("ns", store.link("v1"))
    held = await graphs.current("ns")
    assert held is not None and held.neighbours["a"] == [("K-b", "b", 1.0, 1.0)]
    # held: 2 memories, 2 neighbour entries and the 2 memories the write touched
    assert (graphs.counts["advanced"], graphs.held) == (1, 6)


async def test_a_retrieve_that_read_the_version_before_a_write_walks_the_step_before_it() -> None:
    store = Store()
    graphs = LinkGraphs(store.probe, store.read_together, capacity=100)
    await loaded(graphs)
    first = await store.probe("graph_version")
    graphs.advance("ns", store.link("v1"))
    second = await store.probe("graph_version")
    graphs.advance("ns", store.link("v2"))
    behind = graphs.at("ns", second[0])
    assert behind is not None and behind.version == ("v1", 2, 1, 0)
    assert graphs.at("ns", first[0]) is None  # older still: walks in Neo4j, nothing dropped
    current = await graphs.current("ns")
    assert current is not None and current.version == ("v2", 2, 2, 0)
    assert (graphs.counts["loaded"], graphs.counts["stale"], len(graphs._loading)) == (1, 2, 0)  # pyright: ignore[reportPrivateUsage]


async def test_a_write_committed_while_a_load_is_in_flight_advances_the_loaded_snapshot() -> None:
    store = Store()
    store.release.clear()
    graphs = LinkGraphs(store.probe, store.read_together, capacity=100)
    assert await graphs.current("ns") is None
    await asyncio.sleep(0)  # the load has read the version: v0
    graphs.advance("ns", store.link("v1"))
    store.release.set()
    await next(iter(graphs._loading.values()))  # pyright: ignore[reportPrivateUsage]
    held = await graphs.current("ns")
    assert held is not None and (held.version, held.step) == (("v1", 2, 1, 0), 1)


async def test_a_write_that_fails_to_apply_leaves_the_snapshot_to_go_stale() -> None:
    store = Store()
    graphs = LinkGraphs(store.probe, store.read_together, capacity=100)
    await loaded(graphs)
    broken = store.link("v1")
    broken = GraphWrite(broken.before, broken.after, ["a"], None, ())  # no walk fields
    graphs.advance("ns", broken)
    assert (await graphs.current("ns"), graphs.counts["advanced"]) == (None, 0)


async def test_a_retrieve_behind_more_writes_than_are_remembered_counts_the_snapshot_stale() -> (
    None
):
    store = Store()
    graphs = LinkGraphs(store.probe, store.read_together, capacity=100)
    await loaded(graphs)
    first = (await store.probe("graph_version"))[0]
    for number in range(MAX_VERSIONS_PASSED):
        graphs.advance("ns", store.link(f"v{number + 1}"))
    graphs._namespaces["ns"].next_load = 0.0  # pyright: ignore[reportPrivateUsage]
    assert graphs.at("ns", first) is None and not graphs._loading  # pyright: ignore[reportPrivateUsage]
    graphs.advance("ns", store.link("v-last"))
    assert graphs.at("ns", first) is None and "ns" in graphs._loading  # pyright: ignore[reportPrivateUsage]
