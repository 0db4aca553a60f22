"""The graph walk in process (service/stores/link_graph.py) against Neo4j: for one namespace's
graph, the snapshot answers graph_walk and graph_neighbors with exactly the rows Neo4j returns;
a save or a link of this process advances it to what a load would read, and every other write
of the graph (another process's, a delete, a supersession, a removed link) makes it stale until
it is loaded again."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from service.core.memories import MemoryService
from service.core.models import SaveInput, UpdateInput
from service.core.read.retrieval import Retrieval
from service.core.search_inputs import RetrieveInput, RetrieveMode
from service.filters import MemoryFilters
from service.stores.graph_store import GraphStore
from service.stores.link_graph import LinkGraph
from tests.integration.link_graphs import hydrations, up_to_date

# Keys in code point order differ from UTF-16 order past U+FFFF: both kinds are here, short and
# long (a long one alike up to its last characters).
LONG = "x" * 500
KEY_PARTS = (
    "alpha",
    "Beta",
    "ärger",
    "zeta",
    "\uff21wide",
    "\U0001f600smile",
    "_under",
    "9nine",
    LONG + "\uff21",
    LONG + "\U0001f600",
)
SIZE = 40
LINK_TYPES = ("related", "depends", "cites")


async def loaded_now(graph: GraphStore, namespace: str) -> LinkGraph:
    """The namespace's graph as a load reads it now."""
    version = (await graph.read("graph_version", namespace=namespace))[0]
    memories = (await graph.read("link_graph_memories", namespace=namespace))[0]["memories"]
    links = (await graph.read("link_graph_links", namespace=namespace))[0]["links"]
    token = (version["version"], version["memories"], version["links"], version["size_bytes"])
    return LinkGraph.build(token, memories, links)


async def saved_graph(memories: MemoryService, namespace: str, rng: random.Random) -> list[str]:
    """SIZE memories with varied types, tags and scores, ~3 links each (several types between
    one pair, both directions), two of them superseded; their keys."""
    keys = [f"{rng.choice(KEY_PARTS)}-{i:02d}" for i in range(SIZE)]
    for i, key in enumerate(keys):
        await memories.save(
            namespace,
            SaveInput(
                content=f"memory {i} about {key}",
                key=key,
                type=rng.choice(["note", "decision", "fact"]),
                tags=rng.sample(["red", "green", "blue"], rng.randint(0, 2)),
                score=rng.choice([None, 10.0, 50.0, 90.0]),
            ),
        )
    for key in keys:
        for _ in range(rng.randint(1, 5)):
            target = keys[rng.randrange(SIZE)]
            if target != key:
                weight = rng.choice([0.1, 0.5, 0.9, 1.0, rng.random()])
                await memories.link(namespace, key, target, weight, rng.choice(LINK_TYPES))
    for old, new in ((keys[3], "successor-a"), (keys[7], "successor-b")):
        await memories.save(namespace, SaveInput(content=new, key=new, supersedes=[old]))
        keys.append(new)
    return keys


async def assert_walks_agree(
    graph: GraphStore, namespace: str, snapshot: LinkGraph, rng: random.Random
) -> int:
    """Random walks (seeds, limits, pruning) answered by Neo4j and by the snapshot; the number
    of rows compared."""
    ids = sorted(snapshot.fields)
    compared = 0
    for _ in range(40):
        seeds = [*rng.sample(ids, rng.randint(1, 5)), "no-such-memory"]
        params: dict[str, Any] = {
            "seeds": seeds,
            "relevance": {seed: rng.random() for seed in seeds},
            "two_hops": rng.random() < 0.8,
            "limit": rng.choice([3, 10, 500]),
            "limit_two": rng.choice([5, 20, 1000]),
            "keep": rng.sample(ids, 3),
            "min_value": rng.choice([None, 0.05, 0.2, 0.5]),
        }
        expected = (await graph.read("graph_walk", namespace=namespace, **params))[0]
        assert snapshot.walk(**params) == expected
        frontier = rng.sample(ids, 4)
        limit = rng.choice([2, 8, 100])
        rows = await graph.read(
            "graph_neighbors", namespace=namespace, frontier=frontier, limit=limit
        )
        assert snapshot.neighbours_of(frontier, limit) == rows[0]
        compared += len(expected["first"]) + len(expected["second"])
    return compared


async def test_the_walk_in_process_returns_the_rows_neo4j_returns(
    memories: MemoryService, graph: GraphStore, namespace: str
) -> None:
    rng = random.Random(35)
    await saved_graph(memories, namespace, rng)
    snapshot = await up_to_date(graph, namespace)
    assert len(snapshot.fields) == SIZE + 2
    assert sum(snapshot.superseded.values()) == 2
    assert await assert_walks_agree(graph, namespace, snapshot, rng) > 200


Write = Callable[[MemoryService, str, list[str]], Awaitable[object]]


async def _new_linked(memories: MemoryService, namespace: str, keys: list[str]) -> None:
    links: Any = [{"key": keys[0], "weight": 0.7}]
    await memories.save(namespace, SaveInput(content="a new one", key="new-one", links=links))


async def _retagged(memories: MemoryService, namespace: str, keys: list[str]) -> None:
    await memories.update(namespace, keys[1], UpdateInput(tags=["violet"], score=12.5))


async def _reweighted(memories: MemoryService, namespace: str, keys: list[str]) -> None:
    await memories.link(namespace, keys[2], keys[5], 0.05, "removable")


async def _unlinked(memories: MemoryService, namespace: str, keys: list[str]) -> None:
    await memories.link(namespace, keys[2], keys[5], link_type="removable", remove=True)


async def _superseded(memories: MemoryService, namespace: str, keys: list[str]) -> None:
    await memories.save(namespace, SaveInput(content="next", key="next-9", supersedes=[keys[9]]))


async def _deleted(memories: MemoryService, namespace: str, keys: list[str]) -> None:
    await memories.delete(namespace, keys=[keys[0], keys[11]])


async def _renamed(memories: MemoryService, namespace: str, keys: list[str]) -> None:
    await memories.update(namespace, keys[6], UpdateInput(key="0-first-now", content="renamed"))


async def _rewritten(memories: MemoryService, namespace: str, keys: list[str]) -> None:
    await memories.update(namespace, keys[4], UpdateInput(content="memory 4 rewritten"))


ADVANCING = [_new_linked, _retagged, _reweighted, _renamed, _rewritten]


@pytest.mark.parametrize("write", ADVANCING)
async def test_a_save_or_a_link_of_this_process_advances_the_snapshot_to_what_a_load_reads(
    memories: MemoryService, graph: GraphStore, namespace: str, write: Write
) -> None:
    rng = random.Random(33)
    keys = await saved_graph(memories, namespace, rng)
    before = await up_to_date(graph, namespace)
    loads = graph.link_graphs.counts["loaded"]
    await write(memories, namespace, keys)
    after = await graph.link_graph(namespace)
    assert after is not None and after.step == before.step + 1
    loaded = await loaded_now(graph, namespace)
    assert (after.version, after.fields, after.superseded) == (
        loaded.version,
        loaded.fields,
        loaded.superseded,
    )
    assert (after.neighbours, after.size) == (loaded.neighbours, loaded.size)
    assert after.version[0] != before.version[0]
    assert graph.link_graphs.counts["loaded"] == loads
    assert await assert_walks_agree(graph, namespace, after, rng) > 0


@pytest.mark.parametrize(
    ("write", "by_another_process"),
    [*((w, True) for w in ADVANCING), *((w, False) for w in (_unlinked, _superseded, _deleted))],
)
async def test_every_other_write_of_the_graph_makes_the_snapshot_stale_until_loaded_again(
    memories: MemoryService,
    elsewhere: MemoryService,
    graph: GraphStore,
    namespace: str,
    write: Write,
    by_another_process: bool,
) -> None:
    rng = random.Random(33)
    keys = await saved_graph(memories, namespace, rng)
    if write is _unlinked:
        await memories.link(namespace, keys[2], keys[5], 0.5, "removable")
    before = await up_to_date(graph, namespace)
    await write(elsewhere if by_another_process else memories, namespace, keys)
    assert await graph.link_graph(namespace) is None
    after = await up_to_date(graph, namespace)
    assert after.version[0] != before.version[0] and after.lineage != before.lineage
    loaded = await loaded_now(graph, namespace)
    assert (after.fields, after.neighbours) == (loaded.fields, loaded.neighbours)
    assert await assert_walks_agree(graph, namespace, after, rng) > 0


async def test_the_lexical_read_carries_the_graph_version_row_when_asked(
    memories: MemoryService, graph: GraphStore, namespace: str
) -> None:
    await saved_graph(memories, namespace, random.Random(5))
    params: dict[str, Any] = {
        "namespace": namespace, "query": "memory", "tokens": ["memory"], "lucene": "memory",
        "fetch": 200, "limit": 5, "keyword": True, "keyword_context": False, "kv": True,
        **MemoryFilters().cypher(),
    }  # fmt: skip
    version = (await graph.read("graph_version", namespace=namespace))[0]
    asked = (await graph.read("search_lexical", graph_version=True, **params))[0]
    assert asked["graph"] == version
    assert version["memories"] == SIZE + 2 and version["version"] != ""
    assert (await graph.read("search_lexical", graph_version=False, **params))[0]["graph"] is None


async def test_a_hybrid_retrieve_walks_the_snapshot_only_at_the_version_its_lexical_read_saw(
    memories: MemoryService,
    elsewhere: MemoryService,
    graph: GraphStore,
    retrieval: Retrieval,
    namespace: str,
) -> None:
    keys = await saved_graph(memories, namespace, random.Random(7))
    await up_to_date(graph, namespace)
    counts = graph.link_graphs.counts
    before = dict(counts)
    asked = RetrieveInput(query=f"memory 1 about {keys[1]}", limit=50)  # all: none pruned
    await retrieval.retrieve(namespace, asked)
    assert (counts["current"] - before["current"], counts["stale"] - before["stale"]) == (1, 0)
    await elsewhere.save(namespace, SaveInput(content="fresh", key="fresh"))
    await elsewhere.link(namespace, keys[1], "fresh", 1.0, "related")
    found = await retrieval.retrieve(namespace, asked)
    assert (counts["current"] - before["current"], counts["stale"] - before["stale"]) == (1, 1)
    fresh = [item for item in found["results"] if item["key"] == "fresh"]
    assert [item["hop_distance"] for item in fresh] == [1]  # walked in Neo4j, link included


@pytest.mark.parametrize("mode", ["hybrid", "graph"])
async def test_a_retrieve_at_an_unchanged_graph_version_reads_no_view_an_earlier_one_read(
    memories: MemoryService,
    graph: GraphStore,
    retrieval: Retrieval,
    namespace: str,
    mode: RetrieveMode,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    keys = await saved_graph(memories, namespace, random.Random(11))
    await up_to_date(graph, namespace)
    asked = RetrieveInput(query=f"memory 4 about {keys[4]}", limit=5, search_mode=mode)
    seen = hydrations(graph, monkeypatch)
    first = await retrieval.retrieve(namespace, asked)
    read = sorted(memory_id for ids in seen for memory_id in ids)
    assert len(first["results"]) == 5 and {item["id"] for item in first["results"]} <= set(read)
    seen.clear()
    again = await retrieval.retrieve(namespace, asked)
    assert (again, seen) == (first, [])


async def _target_summarised(memories: MemoryService, namespace: str, keys: list[str]) -> None:
    for key in keys:  # each memory the best one links to gets a summary of its own
        await memories.update(namespace, key, UpdateInput(summary=f"now {key}"))


SHOWN = ("key", "title", "summary", "content", "type", "tags", "created_at", "links")


@pytest.mark.parametrize(
    "write",
    [_rewritten, _target_summarised, _retagged, _new_linked, _reweighted, _renamed, _unlinked,
     _superseded, _deleted],
)  # fmt: skip
async def test_after_a_write_a_retrieve_shows_what_neo4j_holds_not_the_views_held(
    memories: MemoryService,
    graph: GraphStore,
    retrieval: Retrieval,
    namespace: str,
    write: Write,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    keys = await saved_graph(memories, namespace, random.Random(11))
    if write is _unlinked:
        await memories.link(namespace, keys[2], keys[5], 0.5, "removable")
    asked = RetrieveInput(query=f"memory 4 about {keys[4]}", limit=40)
    await up_to_date(graph, namespace)
    before = {item["id"] for item in (await retrieval.retrieve(namespace, asked))["results"]}
    await write(memories, namespace, keys)
    await up_to_date(graph, namespace)
    seen = hydrations(graph, monkeypatch)
    found = await retrieval.retrieve(namespace, asked)
    assert before & {memory_id for ids in seen for memory_id in ids}  # held ones read again
    views = await retrieval.reader.hydrate(namespace, [i["id"] for i in found["results"]], True)
    for item in found["results"]:
        view = views[item["id"]]
        assert {name: item[name] for name in SHOWN} == {name: view[name] for name in SHOWN}
        assert (item["memory_score"], view["superseded_by"]) == (view["score"], None)


async def test_after_a_save_of_this_process_a_retrieve_reads_again_only_the_views_it_touched(
    memories: MemoryService,
    graph: GraphStore,
    retrieval: Retrieval,
    namespace: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    keys = await saved_graph(memories, namespace, random.Random(11))
    asked = RetrieveInput(query=f"memory 4 about {keys[4]}", limit=40)
    await up_to_date(graph, namespace)
    first = {item["id"] for item in (await retrieval.retrieve(namespace, asked))["results"]}
    await _rewritten(memories, namespace, keys)
    advanced = await graph.link_graph(namespace)
    assert advanced is not None
    touched = {i for i, step in advanced.touched.items() if step == advanced.step}
    rewritten = (await memories.get(namespace, keys=[keys[4]]))["memories"][0]["id"]
    assert rewritten in touched and len(touched) < len(first)
    seen = hydrations(graph, monkeypatch)
    found = await retrieval.retrieve(namespace, asked)
    shown = {item["id"] for item in found["results"]}
    read = {memory_id for ids in seen for memory_id in ids}
    assert (read & first) - touched == set()  # views held and not touched: none read again
    assert touched & first & shown <= read
    content = {item["id"]: item["content"] for item in found["results"]}
    assert content[rewritten] == "memory 4 rewritten"
