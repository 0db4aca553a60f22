"""Supersession and near-duplicates against the real Neo4j, Qdrant Edge and embedding model:
superseded memories leave every search channel unless asked for, memory_get shows the chain,
deleting the superseder restores them, and saves report their near-duplicates."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from bench.common import open_driver
from service.config import Settings
from service.core.memories import MemoryService
from service.core.models import SaveInput, now_utc
from service.core.read.retrieval import Retrieval
from service.core.search_inputs import FulltextInput, RetrieveInput, SearchInput
from service.core.upkeep.reconcile import Reconciler
from service.core.write.batch import BatchSaver
from service.errors import BackendUnavailable, InvalidParameter, NotFound
from service.stores.embeddings import LocalMiniLM
from service.stores.graph_store import GraphStore, Tx
from service.stores.vector_store import EdgeVectorStore, VectorPoint
from tests.integration.marks import service_with_marks

OLD = "The staging database runs on PostgreSQL 14 on host db-old"
NEW = "The staging database moved to PostgreSQL 16 on host db-new"


async def qdrant_down(ids: Sequence[str], superseded: bool) -> None:
    """set_superseded of a vector engine that is down."""
    raise BackendUnavailable("qdrant", "down")


def save_input(key: str, content: str, **fields: Any) -> SaveInput:
    return SaveInput.model_validate({"key": key, "content": content, **fields})


async def found_keys(retrieval: Retrieval, namespace: str, include: bool = False) -> dict[str, Any]:
    """Keys each search path returns for a query both memories match."""
    search = {
        mode: [
            r["key"]
            for r in (
                await retrieval.search(
                    namespace,
                    SearchInput(
                        query="staging database PostgreSQL", mode=mode, include_superseded=include
                    ),
                )
            )["results"]
        ]
        for mode in ("bm25", "vector", "hybrid")
    }
    fulltext = await retrieval.fulltext(
        namespace, FulltextInput(keywords=["staging"], include_superseded=include)
    )
    retrieved = {
        mode: sorted(
            r["key"]
            for r in (
                await retrieval.retrieve(
                    namespace,
                    RetrieveInput(
                        query="staging database PostgreSQL",
                        search_mode=mode,
                        include_superseded=include,
                    ),
                )
            )["results"]
        )
        for mode in ("hybrid", "vector", "keyword")
    }
    return {
        "search": {mode: sorted(keys) for mode, keys in search.items()},
        "fulltext": sorted(r["key"] for r in fulltext["results"]),
        "retrieve": retrieved,
    }


def everywhere(keys: list[str]) -> dict[str, Any]:
    return {
        "search": {"bm25": keys, "vector": keys, "hybrid": keys},
        "fulltext": keys,
        "retrieve": {"hybrid": keys, "vector": keys, "keyword": keys},
    }


async def test_a_superseded_memory_leaves_search_and_retrieval_unless_asked_for(
    memories: MemoryService, retrieval: Retrieval, namespace: str
) -> None:
    old = await memories.save(namespace, save_input("db-host", OLD))
    new = await memories.save(namespace, save_input("db-host-2", NEW, supersedes=["db-host"]))
    assert await found_keys(retrieval, namespace) == everywhere(["db-host-2"])
    assert await found_keys(retrieval, namespace, include=True) == everywhere(
        ["db-host", "db-host-2"]
    )
    got = await memories.get(namespace, keys=["db-host", "db-host-2"])
    stale, current = got["memories"]
    assert stale["superseded_by"] == new["memory"]["id"]
    assert stale["superseded_at"] is not None
    assert stale["supersedes"] == []
    assert current["superseded_by"] is None
    assert current["superseded_at"] is None
    assert current["supersedes"] == [old["memory"]["id"]]


async def test_deleting_the_superseding_memory_makes_the_old_one_current_again(
    memories: MemoryService, retrieval: Retrieval, namespace: str
) -> None:
    await memories.save(namespace, save_input("db-host", OLD))
    await memories.save(namespace, save_input("db-host-2", NEW, supersedes=["db-host"]))
    await memories.delete(namespace, keys=["db-host-2"])
    assert await found_keys(retrieval, namespace) == everywhere(["db-host"])
    restored = (await memories.get(namespace, keys=["db-host"]))["memories"][0]
    assert (restored["superseded_by"], restored["superseded_at"]) == (None, None)


async def test_superseding_again_moves_the_memory_to_its_new_superseder(
    memories: MemoryService, namespace: str
) -> None:
    await memories.save(namespace, save_input("v1", "first version of the deploy runbook"))
    second = await memories.save(namespace, save_input("v2", "second runbook", supersedes=["v1"]))
    first_at = (await memories.get(namespace, keys=["v1"]))["memories"][0]["superseded_at"]
    again = await memories.save(namespace, save_input("v2", "second runbook", supersedes=["v1"]))
    assert (await memories.get(namespace, keys=["v1"]))["memories"][0]["superseded_at"] == first_at
    third = await memories.save(namespace, save_input("v3", "third runbook", supersedes=["v1"]))
    chain = (await memories.get(namespace, keys=["v1", "v2", "v3"]))["memories"]
    assert chain[0]["superseded_by"] == third["memory"]["id"]
    assert chain[1]["supersedes"] == []
    assert chain[2]["supersedes"] == [chain[0]["id"]]
    assert again["memory"]["id"] == second["memory"]["id"]


async def test_unknown_or_self_supersession_is_refused_and_nothing_is_saved(
    memories: MemoryService, namespace: str
) -> None:
    with pytest.raises(NotFound, match=r"^Superseded memory\(ies\) not found: nope$"):
        await memories.save(namespace, save_input("new", "text", supersedes=["nope"]))
    with pytest.raises(InvalidParameter, match="'self' is the memory being saved"):
        await memories.save(namespace, save_input("self", "text", supersedes=["self"]))
    got = await memories.get(namespace, keys=["new", "self"])
    assert (got["memories"], got["missing"]) == ([], ["new", "self"])


async def test_superseding_a_memory_that_supersedes_the_saved_one_is_refused(
    memories: MemoryService, namespace: str
) -> None:
    await memories.save(namespace, save_input("v1", "first version of the deploy runbook"))
    await memories.save(namespace, save_input("v2", "second runbook", supersedes=["v1"]))
    await memories.save(namespace, save_input("v3", "third runbook", supersedes=["v2"]))
    for saved, named in (("v1", "v2"), ("v1", "v3"), ("v2", "v3")):
        message = (
            f"Invalid supersedes value: '{named}' supersedes the memory being saved (directly "
            "or through others). Must name memories that do not"
        )
        with pytest.raises(InvalidParameter) as refused:
            await memories.save(namespace, save_input(saved, "reverted", supersedes=[named]))
        assert refused.value.message == message
    chain = (await memories.get(namespace, keys=["v1", "v2", "v3"]))["memories"]
    ids = [memory["id"] for memory in chain]
    assert [memory["superseded_by"] for memory in chain] == [ids[1], ids[2], None]
    assert [memory["content"] for memory in chain][:2] == [
        "first version of the deploy runbook",
        "second runbook",
    ]
    current = await memories.save(namespace, save_input("v4", "fourth", supersedes=["v3"]))
    assert current["memory"]["supersedes"] == [ids[2]]


async def test_a_batch_item_may_not_close_a_cycle_of_supersession(
    memories: MemoryService, batches: BatchSaver, namespace: str
) -> None:
    await memories.save(namespace, save_input("a", "alpha note"))
    result = await batches.save(
        namespace,
        [
            {"key": "b", "content": "beta note", "supersedes": ["a"]},
            {"key": "c", "content": "gamma note", "supersedes": ["b"]},
            {"key": "a", "content": "alpha again", "supersedes": ["c"]},
        ],
    )
    assert [r["success"] for r in result["results"]] == [True, True, False]
    assert [r["message"] for r in result["results"] if r["success"] is False] == [
        (
            "Invalid supersedes value: 'c' supersedes the memory being saved (directly or through "
            "others). Must name memories that do not"
        )
    ]
    got = (await memories.get(namespace, keys=["a", "b", "c"]))["memories"]
    assert [memory["superseded_by"] for memory in got] == [got[1]["id"], got[2]["id"], None]
    assert got[0]["content"] == "alpha note"


async def test_a_batch_item_supersedes_an_earlier_item_and_a_stored_memory(
    memories: MemoryService, batches: BatchSaver, retrieval: Retrieval, namespace: str
) -> None:
    await memories.save(namespace, save_input("db-host", OLD))
    result = await batches.save(
        namespace,
        [
            {"key": "draft", "content": "The staging database PostgreSQL draft note"},
            {"key": "db-host-2", "content": NEW, "supersedes": ["db-host", "draft"]},
            {"key": "bad", "content": "x", "supersedes": ["missing"]},
        ],
    )
    assert [r["success"] for r in result["results"]] == [True, True, False]
    refused = [r["message"] for r in result["results"] if r["success"] is False]
    assert refused == ["Superseded memory(ies) not found: missing"]
    assert await found_keys(retrieval, namespace) == everywhere(["db-host-2"])


async def test_reconcile_writes_the_superseded_flag_a_crash_left_out_of_qdrant(
    memories: MemoryService,
    retrieval: Retrieval,
    graph: GraphStore,
    edge_store: EdgeVectorStore,
    embedder: LocalMiniLM,
    namespace: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await memories.save(namespace, save_input("db-host", OLD))

    monkeypatch.setattr(edge_store, "set_superseded", qdrant_down)
    with pytest.raises(BackendUnavailable):
        await memories.save(namespace, save_input("db-host-2", NEW, supersedes=["db-host"]))
    monkeypatch.undo()
    vector = await retrieval.search(namespace, SearchInput(query=OLD, mode="vector"))
    assert [r["key"] for r in vector["results"]] == ["db-host", "db-host-2"]
    await Reconciler(graph, edge_store, embedder).run()
    vector = await retrieval.search(namespace, SearchInput(query=OLD, mode="vector"))
    assert [r["key"] for r in vector["results"]] == ["db-host-2"]


async def test_a_queued_synced_mark_never_clears_a_supersession_still_owed_to_qdrant(
    memories: MemoryService,
    retrieval: Retrieval,
    graph: GraphStore,
    edge_store: EdgeVectorStore,
    namespace: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    service = service_with_marks(memories, delay_s=60)  # db-host's mark stays queued
    old = (await service.save(namespace, save_input("db-host", OLD)))["memory"]["id"]

    monkeypatch.setattr(edge_store, "set_superseded", qdrant_down)
    with pytest.raises(BackendUnavailable):
        await service.save(namespace, save_input("db-host-2", NEW, supersedes=["db-host"]))
    monkeypatch.undo()
    await service.close()  # writes db-host's queued mark: it must not clear the new one
    pending = await graph.read("vector_pending", limit=100_000, vector_store=None)
    assert old in {row["id"] for row in pending}
    await Reconciler(graph, edge_store, memories.stores.embedder).run()  # writes the flag it owed
    vector = await retrieval.search(namespace, SearchInput(query=OLD, mode="vector"))
    assert [r["key"] for r in vector["results"]] == ["db-host-2"]


async def test_superseding_a_memory_whose_mark_is_still_queued_leaves_its_vector_synced(
    memories: MemoryService, retrieval: Retrieval, graph: GraphStore, namespace: str
) -> None:
    service = service_with_marks(memories, delay_s=60)  # db-host's mark stays queued
    old = (await service.save(namespace, save_input("db-host", OLD)))["memory"]["id"]
    new = await service.save(namespace, save_input("db-host-2", NEW, supersedes=["db-host"]))
    pending = {
        row["id"] for row in await graph.read("vector_pending", limit=100_000, vector_store=None)
    }
    assert (old in pending, new["memory"]["id"] in pending) == (False, True)
    vector = await retrieval.search(namespace, SearchInput(query=OLD, mode="vector"))
    assert [r["key"] for r in vector["results"]] == ["db-host-2"]
    await service.close()


async def test_a_synced_mark_racing_a_supersession_never_clears_its_pending_mark(
    memories: MemoryService, graph: GraphStore, namespace: str
) -> None:
    service = service_with_marks(memories, delay_s=60)  # both marks stay queued
    old = (await service.save(namespace, save_input("db-host", OLD)))["memory"]["id"]
    new = (await service.save(namespace, save_input("db-host-2", NEW)))["memory"]["id"]

    async def supersede_while_marking(tx: Tx) -> asyncio.Task[int]:
        await tx.run("memory_supersede", rows=[{"id": new, "old_ids": [old]}], now=now_utc())
        marking = asyncio.create_task(service.saver.marks.flush())
        await asyncio.sleep(0.3)  # the mark's statement reaches db-host before this commits
        return marking

    marking = await graph.transaction(supersede_while_marking)
    assert await marking == 2
    pending = {
        row["id"] for row in await graph.read("vector_pending", limit=100_000, vector_store=None)
    }
    assert (old in pending, new in pending) == (True, False)
    await service.close()
    await Reconciler(
        graph, service.stores.vectors, service.stores.embedder
    ).run()  # writes the owed flag
    pending = {
        row["id"] for row in await graph.read("vector_pending", limit=100_000, vector_store=None)
    }
    assert old not in pending


async def test_a_save_lists_its_near_duplicates_with_their_score(
    memories: MemoryService, namespace: str
) -> None:
    first = await memories.save(namespace, save_input("a", "Use sql.js for zero native deps"))
    assert first["similar"] == []
    await memories.save(namespace, save_input("far", "The cat sleeps on the warm windowsill"))
    near = await memories.save(namespace, save_input("b", "Use sql.js for zero native deps!"))
    same = await memories.save(namespace, save_input("c", "Use sql.js for zero native deps"))
    assert [(s["key"], s["id"]) for s in near["similar"]] == [("a", first["memory"]["id"])]
    assert 0.95 <= near["similar"][0]["score"] < 1.0
    assert (same["similar"][0]["key"], same["similar"][0]["score"]) == ("a", 1.0)
    assert [s["key"] for s in same["similar"]] == ["a", "b"]
    again = await memories.save(namespace, save_input("a", "Use sql.js for zero native deps"))
    assert [s["key"] for s in again["similar"]] == ["c", "b"]


async def context_seqs(settings: Settings, ids: Sequence[str]) -> dict[str, int]:
    """Each memory's context_seq, read straight from Neo4j."""
    async with open_driver(settings.neo4j) as driver:
        records, _, _ = await driver.execute_query(
            "MATCH (m:Memory) WHERE m.id IN $ids RETURN m.id AS id, m.context_seq AS seq", ids=ids
        )
    return {record["id"]: record["seq"] for record in records}


async def test_a_change_of_the_superseded_flag_marks_the_context_for_refresh(
    memories: MemoryService, settings: Settings, namespace: str
) -> None:
    """A context refresh that read a memory before its flag changed stays pending (its synced
    mark carries the older seq), so the indexer rewrites the context vector with the new flag."""
    old = (await memories.save(namespace, save_input("db-host", OLD)))["memory"]["id"]
    before = (await context_seqs(settings, [old]))[old]
    await memories.save(namespace, save_input("db-host-2", NEW, supersedes=["db-host"]))
    superseded = (await context_seqs(settings, [old]))[old]
    await memories.delete(namespace, keys=["db-host-2"])
    assert (await context_seqs(settings, [old]))[old] == superseded + 1 == before + 2


async def test_a_stale_context_vector_never_brings_a_superseded_memory_back(
    memories: MemoryService,
    retrieval: Retrieval,
    context_store: EdgeVectorStore,
    embedder: LocalMiniLM,
    namespace: str,
) -> None:
    """What a context refresh racing the supersession writes (the old flag) is not trusted:
    retrieve_context leaves out what Neo4j says is superseded."""
    old = (await memories.save(namespace, save_input("db-host", OLD)))["memory"]["id"]
    await memories.save(namespace, save_input("db-host-2", NEW, supersedes=["db-host"]))
    vector = (await embedder.embed([OLD]))[0]
    stale = VectorPoint(old, vector, namespace, "note", (), "db-host", 0, superseded=False)
    await context_store.upsert([stale])
    query = RetrieveInput(query=OLD, sort_by="relevance")
    found = await retrieval.retrieve(namespace, query)
    assert [r["key"] for r in found["results"]] == ["db-host-2"]
    wanted = query.model_copy(update={"include_superseded": True})
    found = await retrieval.retrieve(namespace, wanted)
    assert sorted(r["key"] for r in found["results"]) == ["db-host", "db-host-2"]


async def test_a_memory_found_superseded_when_hydrated_gives_its_place_to_the_next(
    memories: MemoryService,
    retrieval: Retrieval,
    edge_store: EdgeVectorStore,
    embedder: LocalMiniLM,
    namespace: str,
) -> None:
    """A stale vector that outranks the rest costs no place in `limit`: the next best takes it,
    and `total_count` leaves the dropped memory out."""
    old = (await memories.save(namespace, save_input("db-host", OLD)))["memory"]["id"]
    await memories.save(namespace, save_input("db-host-2", NEW, supersedes=["db-host"]))
    vector = (await embedder.embed([OLD]))[0]
    stale = VectorPoint(old, vector, namespace, "note", (), "db-host", 0, superseded=False)
    await edge_store.upsert([stale])
    query = RetrieveInput(query=OLD, search_mode="vector", sort_by="relevance", limit=1)
    found = await retrieval.retrieve(namespace, query)
    assert [r["key"] for r in found["results"]] == ["db-host-2"]
    assert found["total_count"] == 1
    assert found["message"] == "Found 1 contexts"


async def test_a_save_never_lists_a_memory_it_supersedes_among_its_near_duplicates(
    memories: MemoryService, namespace: str
) -> None:
    await memories.save(namespace, save_input("port", "API on port 9000"))
    copy = await memories.save(namespace, save_input("port-copy", "API on port 9000"))
    new = await memories.save(
        namespace, save_input("port-2", "API on port 9000", supersedes=["port"])
    )
    assert new["similar"] == [{"id": copy["memory"]["id"], "key": "port-copy", "score": 1.0}]
