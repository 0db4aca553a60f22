"""Saving, getting, linking and deleting memories against the real Neo4j and Qdrant Edge."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Sequence
from typing import Any

import pytest

from bench.common import open_driver
from service.config import Settings
from service.core.memories import LinkFilter, MemoryService
from service.core.models import LinkSpec, SaveInput, UpdateInput, now_utc
from service.core.stores import Stores
from service.core.write.save_plan import link_rows
from service.errors import (
    Conflict,
    InvalidParameter,
    MemoryDisabled,
    NotFound,
    PayloadTooLarge,
)
from service.stores.embeddings import LocalMiniLM, Vectors
from service.stores.graph_store import GraphStore
from service.stores.vector_store import EdgeVectorStore, VectorFilter
from tests.integration.marks import service_with_marks


def save_input(**fields: Any) -> SaveInput:
    return SaveInput.model_validate({"content": "some content", **fields})


async def test_save_creates_then_updates_the_same_memory_by_key(
    memories: MemoryService, namespace: str
) -> None:
    first = await memories.save(namespace, save_input(key="k1", content="v1", score=10))
    second = await memories.save(namespace, save_input(key="k1", content="v2", score=20))
    assert (first["created"], second["created"]) == (True, False)
    assert second["memory"]["id"] == first["memory"]["id"]
    assert second["memory"]["content"] == "v2"
    assert second["memory"]["score"] == 20.0
    assert second["memory"]["created_at"] == first["memory"]["created_at"]
    assert str(second["memory"]["updated_at"]) >= str(first["memory"]["updated_at"])


async def test_save_derives_key_summary_and_defaults(
    memories: MemoryService, namespace: str
) -> None:
    result = await memories.save(
        namespace, save_input(title="Use sql.js", type="decision", content="Zero native deps.")
    )
    memory = result["memory"]
    assert memory["key"] == f"decision:use-sql-js:{memory['id'].replace('-', '')[:8]}"
    assert memory["summary"] == "Zero native deps."
    assert memory["score"] is None
    assert memory["tags"] == []
    assert memory["metadata"] == {}
    assert memory["access_count"] == 0
    assert memory["links"] == []
    assert memory["namespace"] == namespace


async def test_private_spans_never_reach_storage_or_the_vector(
    memories: MemoryService, namespace: str, graph: GraphStore
) -> None:
    result = await memories.save(
        namespace,
        save_input(title="t <private>x</private>", content="token <private>hunter2</private>!"),
    )
    assert result["memory"]["content"] == "token [REDACTED]!"
    assert result["memory"]["title"] == "t [REDACTED]"
    assert result["memory"]["summary"] == "token [REDACTED]!"
    rows = await graph.read("memory_hydrate", ids=[result["memory"]["id"]], namespace=namespace)
    assert "hunter2" not in str(rows)


class CountingEmbedder:
    """The real embedder, counting the texts it embeds."""

    def __init__(self, inner: LocalMiniLM) -> None:
        self.inner = inner
        self.model = inner.model
        self.dimensions = inner.dimensions
        self.texts: list[str] = []

    async def embed(self, texts: Sequence[str]) -> Vectors:
        self.texts.extend(texts)
        return await self.inner.embed(texts)

    async def close(self) -> None:
        return None


async def test_an_unchanged_save_embeds_nothing_and_a_changed_one_embeds_once(
    memories: MemoryService, namespace: str, embedder: LocalMiniLM
) -> None:
    counting = CountingEmbedder(embedder)
    service = MemoryService(
        memories.settings, Stores(memories.stores.graph, memories.stores.vectors, counting)
    )
    await service.save(namespace, save_input(key="same", content="stable text"))
    await service.save(namespace, save_input(key="same", content="stable text"))
    assert counting.texts == ["stable text"]
    await service.save(namespace, save_input(key="same", content="new text"))
    assert counting.texts == ["stable text", "new text"]


async def test_synced_marks_of_saves_are_written_together_after_the_saves_return(
    memories: MemoryService, namespace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    graph = memories.stores.graph
    service = service_with_marks(memories, delay_s=60)
    saved = [
        (await service.save(namespace, save_input(key=f"mark-{i}", content=f"text {i}")))["memory"]
        for i in range(3)
    ]
    ids = {memory["id"] for memory in saved}
    # Acknowledged with their vectors in Qdrant; Neo4j still says pending until the flush.
    assert len(await memories.stores.vectors.existing_ids(list(ids))) == 3
    assert ids <= await pending_ids(graph)
    writes: list[str] = []
    write = graph.write

    async def counted(query: str, /, **params: Any) -> list[dict[str, Any]]:
        # Only writes of these saves: the session's shared service may flush its own meanwhile.
        if any(item.get("id") in ids for item in params.get("items", [])):
            writes.append(query)
        return await write(query, **params)

    monkeypatch.setattr(graph, "write", counted)
    started = time.monotonic()
    await service.close()  # writes them now: the flusher stops waiting out its 60 s
    closing_s = time.monotonic() - started
    monkeypatch.undo()
    assert writes == ["vector_mark_synced"]
    assert closing_s < 30
    assert not ids & await pending_ids(graph)


async def test_a_flush_returns_only_once_a_mark_write_already_under_way_is_done(
    memories: MemoryService, namespace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    graph = memories.stores.graph
    service = service_with_marks(memories, delay_s=0)
    entered, released = asyncio.Event(), asyncio.Event()
    write = graph.write

    async def held(query: str, /, **params: Any) -> list[dict[str, Any]]:
        if query == "vector_mark_synced":
            entered.set()
            await released.wait()
        return await write(query, **params)

    monkeypatch.setattr(graph, "write", held)
    saved = (await service.save(namespace, save_input(key="held", content="held mark")))["memory"]
    await entered.wait()  # the background flusher has taken the mark and waits in its write
    flushing = asyncio.create_task(service.saver.marks.flush())
    await asyncio.sleep(0.05)
    assert not flushing.done()
    released.set()
    assert await flushing == 0
    monkeypatch.undo()
    assert saved["id"] not in await pending_ids(graph)
    await service.close()


async def pending_ids(graph: GraphStore) -> set[str]:
    return {
        row["id"] for row in await graph.read("vector_pending", limit=100_000, vector_store=None)
    }


async def test_a_save_is_searchable_by_vector_as_soon_as_it_returns(
    memories: MemoryService, namespace: str, edge_store: EdgeVectorStore, embedder: LocalMiniLM
) -> None:
    saved = await memories.save(namespace, save_input(content="Neo4j stores the graph"))
    query = embedder.embed_sync(["which database stores the graph?"])[0]
    hits = await edge_store.search(query, VectorFilter(namespace), limit=5)
    assert [hit.id for hit in hits] == [saved["memory"]["id"]]


async def test_links_created_inline_by_key_and_id_come_back_sorted(
    memories: MemoryService, namespace: str
) -> None:
    a = await memories.save(namespace, save_input(key="a", score=80))
    await memories.save(namespace, save_input(key="b", score=None))
    saved = await memories.save(
        namespace,
        save_input(
            key="src",
            links=[
                {"key": "b", "weight": 0.9},
                {"id": a["memory"]["id"], "weight": 0.75, "type": "cites", "term": "basis"},
            ],
        ),
    )
    links = saved["memory"]["links"]
    assert [(x["key"], x["combined_score"]) for x in links] == [("a", 60.0), ("b", 45.0)]
    assert links[0] | {"created_at": None} == {
        "id": a["memory"]["id"],
        "key": "a",
        "type": "cites",
        "term": "basis",
        "weight": 0.75,
        "score": 80.0,
        "combined_score": 60.0,
        "summary": "some content",
        "created_at": None,
    }
    unsorted = await memories.get(namespace, keys=["src"], sort=False)
    assert [x["key"] for x in unsorted["memories"][0]["links"]] == ["b", "a"]


async def test_unknown_link_targets_refuse_the_whole_save(
    memories: MemoryService, namespace: str
) -> None:
    await memories.save(namespace, save_input(key="exists"))
    with pytest.raises(NotFound) as caught:
        await memories.save(
            namespace,
            save_input(key="new", links=[{"key": "exists"}, {"key": "ghost"}, {"key": "gone"}]),
        )
    assert caught.value.message == "Link target(s) not found: ghost, gone"
    result = await memories.get(namespace, keys=["new"])
    assert result["missing"] == ["new"]


async def test_link_targets_resolve_by_id_or_key_only_within_the_namespace(
    memories: MemoryService, namespace: str
) -> None:
    by_id = await memories.save(namespace, save_input(key="by-id"))
    await memories.save(namespace, save_input(key="by-key"))
    elsewhere = await memories.save(f"{namespace}-other", save_input(key="foreign"))
    foreign_id = elsewhere["memory"]["id"]
    with pytest.raises(NotFound) as caught:
        await memories.save(
            namespace, save_input(key="src", links=[{"id": foreign_id}, {"key": "foreign"}])
        )
    assert caught.value.message == f"Link target(s) not found: {foreign_id}, foreign"
    saved = await memories.save(
        namespace,
        save_input(key="src", links=[{"id": by_id["memory"]["id"]}, {"key": "by-key"}]),
    )
    assert sorted(link["key"] for link in saved["memory"]["links"]) == ["by-id", "by-key"]
    assert (await memories.lifecycle.stats(namespace))["linkCount"] == 2


async def test_link_updates_weight_and_term_then_removes(
    memories: MemoryService, namespace: str
) -> None:
    await memories.save(namespace, save_input(key="s"))
    await memories.save(namespace, save_input(key="t", score=40))
    created = await memories.link(namespace, "s", "t", weight=0.25, term="first")
    updated = await memories.link(namespace, "s", "t", weight=1.0, term="second")
    assert (created["link"]["weight"], created["link"]["term"]) == (0.25, "first")
    assert (updated["link"]["weight"], updated["link"]["term"]) == (1.0, "second")
    assert updated["link"]["combined_score"] == 40.0
    fetched = await memories.get(namespace, keys=["s"])
    assert len(fetched["memories"][0]["links"]) == 1
    removed = await memories.link(namespace, "s", "t", remove=True)
    assert removed.get("removed") is True
    assert (await memories.get(namespace, keys=["s"]))["memories"][0]["links"] == []
    with pytest.raises(NotFound):
        await memories.link(namespace, "s", "t", remove=True)


async def test_one_link_per_source_target_and_type(memories: MemoryService, namespace: str) -> None:
    await memories.save(namespace, save_input(key="s"))
    await memories.save(namespace, save_input(key="t"))
    await memories.link(namespace, "s", "t", link_type="related")
    await memories.link(namespace, "s", "t", link_type="related", weight=0.9)
    await memories.link(namespace, "s", "t", link_type="cites")
    links = (await memories.get(namespace, keys=["s"]))["memories"][0]["links"]
    assert sorted((x["type"], x["weight"]) for x in links) == [("cites", 0.5), ("related", 0.9)]


async def test_link_filters_apply_before_sorting(memories: MemoryService, namespace: str) -> None:
    for key, score in (("x", 100), ("y", 10), ("z", 90)):
        await memories.save(namespace, save_input(key=key, score=score))
    await memories.save(
        namespace,
        save_input(
            key="s",
            links=[
                {"key": "x", "weight": 0.2, "type": "cites"},
                {"key": "y", "weight": 0.9},
                {"key": "z", "weight": 0.6, "type": "cites"},
            ],
        ),
    )
    result = await memories.get(
        namespace, keys=["s"], link_filter=LinkFilter(types=("cites",), min_weight=0.5)
    )
    assert [x["key"] for x in result["memories"][0]["links"]] == ["z"]


async def test_delete_removes_the_memory_its_links_and_its_vector(
    memories: MemoryService, namespace: str, edge_store: EdgeVectorStore
) -> None:
    target = await memories.save(namespace, save_input(key="t"))
    await memories.save(namespace, save_input(key="s", links=[{"key": "t"}]))
    result = await memories.delete(namespace, keys=["t", "nope"])
    assert result == {"success": True, "deleted": 1, "missing": ["nope"]}
    assert await edge_store.existing_ids([target["memory"]["id"]]) == set()
    assert (await memories.get(namespace, keys=["s"]))["memories"][0]["links"] == []


async def test_get_returns_asked_order_updates_access_and_lists_missing(
    memories: MemoryService, namespace: str
) -> None:
    a = await memories.save(namespace, save_input(key="a"))
    await memories.save(namespace, save_input(key="b"))
    first = await memories.get(namespace, ids=[a["memory"]["id"]], keys=["zz", "b"])
    assert [m["key"] for m in first["memories"]] == ["a", "b"]
    assert first["missing"] == ["zz"]
    assert first["memories"][0]["access_count"] == 1
    second = await memories.get(namespace, keys=["a"])
    assert second["memories"][0]["access_count"] == 2
    assert str(second["memories"][0]["accessed_at"]) >= str(first["memories"][0]["accessed_at"])


async def test_get_counts_one_access_per_memory_and_an_id_wins_over_an_equal_key(
    memories: MemoryService, namespace: str
) -> None:
    target = (await memories.save(namespace, save_input(key="target")))["memory"]
    await memories.save(namespace, save_input(key=target["id"], content="named like an id"))

    both_ways = await memories.get_one(namespace, target["id"])
    named_twice = await memories.get(namespace, ids=[target["id"]], keys=["target", "target"])
    by_key = await memories.get(namespace, keys=[target["id"]])

    assert both_ways["memory"]["key"] == "target"
    assert both_ways["memory"]["access_count"] == 1
    assert (both_ways["memories"], both_ways["missing"]) == ([both_ways["memory"]], [])
    assert [m["key"] for m in named_twice["memories"]] == ["target"]
    assert named_twice["memories"][0]["access_count"] == 2
    assert named_twice["missing"] == []
    assert [m["content"] for m in by_key["memories"]] == ["named like an id"]
    assert by_key["memories"][0]["access_count"] == 1


async def test_a_ref_that_is_one_memorys_id_and_anothers_key_names_the_id_everywhere(
    memories: MemoryService, namespace: str
) -> None:
    target = (await memories.save(namespace, save_input(key="target")))["memory"]
    twin = await memories.save(namespace, save_input(key=target["id"], content="named like an id"))
    ref = target["id"]
    resolved = await memories.reader.resolve(namespace, ids=[ref], keys=[ref])
    timeline = await memories.lifecycle.timeline(namespace, target["id"], window=1)
    linked = await memories.link(namespace, target["id"], "target", weight=0.4)
    deleted = await memories.delete(namespace, ids=[target["id"]], keys=[target["id"]])
    left = await memories.get(namespace, keys=[target["id"]])
    assert resolved == {ref: target["id"]}
    assert timeline["anchor"] == target["id"]
    assert linked["link"]["key"] == "target"
    assert (deleted["deleted"], deleted["missing"]) == (1, [])
    assert [m["id"] for m in left["memories"]] == [twin["memory"]["id"]]


async def test_get_and_search_hydration_show_a_memory_the_same_way(
    memories: MemoryService, namespace: str
) -> None:
    await memories.save(namespace, save_input(key="t1", score=80))
    await memories.save(namespace, save_input(key="t2"))
    links = [{"key": "t2", "weight": 0.9, "term": "see"}, {"key": "t1", "type": "cites"}]
    saved = (await memories.save(namespace, save_input(key="src", links=links)))["memory"]

    got = (await memories.get(namespace, keys=["src"]))["memories"][0]
    hydrated = (await memories.reader.hydrate(namespace, [saved["id"]], sort=True))[saved["id"]]

    access = ("accessed_at", "access_count")
    assert {k: v for k, v in got.items() if k not in access} == {
        k: v for k, v in hydrated.items() if k not in access
    }
    assert [(link["key"], link["combined_score"]) for link in got["links"]] == [
        ("t2", 45.0),
        ("t1", 40.0),
    ]


async def test_link_upsert_names_missing_targets_and_writes_nothing_without_its_source(
    memories: MemoryService, graph: GraphStore, namespace: str
) -> None:
    source = (await memories.save(namespace, save_input(key="from")))["memory"]["id"]
    rows = link_rows([LinkSpec(key="ghost"), LinkSpec(key="from", type="self")])

    missing_target = await graph.write(
        "link_upsert", source_id=source, namespace=namespace, now=now_utc(), links=rows
    )
    missing_source = await graph.write(
        "link_upsert", source_id="no-such-id", namespace=namespace, now=now_utc(), links=rows
    )

    [row] = missing_target
    assert (row["missing"], row["pairs"]) == (["ghost"], [[source, [0.5]]])  # a self-link, once
    before, after = row["graph_version_before"], row["graph_version"]
    assert (before[1:3], after[1:3], after[3] == before[3]) == ([1, 0], [1, 1], True)
    assert after[0] != before[0]
    assert missing_source == []


async def test_namespaces_do_not_see_each_other(memories: MemoryService, namespace: str) -> None:
    await memories.save(namespace, save_input(key="private"))
    other = await memories.get(namespace + "-other", keys=["private"])
    assert other == {"success": True, "memories": [], "missing": ["private"]}


async def test_an_id_in_capitals_is_the_same_id_and_never_reaches_another_namespace(
    memories: MemoryService, namespace: str, edge_store: EdgeVectorStore
) -> None:
    foreign = (await memories.save(namespace + "-other", save_input(content="payroll runs")))[
        "memory"
    ]["id"]
    vector = (await edge_store.vectors_of([foreign]))[foreign]
    with pytest.raises(Conflict) as caught:
        await memories.save(namespace, save_input(id=foreign.upper(), content="attacker"))
    assert caught.value.message == f"Memory id {foreign} is taken"
    assert (await edge_store.vectors_of([foreign]))[foreign].tolist() == vector.tolist()
    mine = str(uuid.uuid4())
    saved = await memories.save(namespace, save_input(id=mine.upper(), content="mine"))
    assert saved["memory"]["id"] == mine
    again = await memories.save(namespace, save_input(id=mine.upper(), content="mine, edited"))
    assert (again["created"], again["memory"]["id"]) == (False, mine)
    got = await memories.get(namespace, ids=[mine.upper()])
    assert ([m["id"] for m in got["memories"]], got["missing"]) == ([mine], [])
    linked = await memories.save(namespace, save_input(links=[{"id": mine.upper()}]))
    assert [link["id"] for link in linked["memory"]["links"]] == [mine]


async def test_ids_stored_in_capitals_are_lower_cased_by_the_migration(
    graph: GraphStore, settings: Settings, namespace: str
) -> None:
    upper, twin = str(uuid.uuid4()).upper(), str(uuid.uuid4())
    async with open_driver(settings.neo4j) as driver:
        await driver.execute_query(
            "CREATE (:Memory {id: $upper, namespace: $ns, key: $ns + '-a', type: 'note'}), "
            "(:Memory {id: $twin, namespace: $ns, key: $ns + '-b', type: 'note', "
            "superseded_by: $upper}), "
            "(:Memory {id: toUpper($twin), namespace: $ns, key: $ns + '-c', type: 'note'})",
            upper=upper,
            twin=twin,
            ns=namespace,
        )
        await driver.execute_query(
            "MATCH (s:SchemaMigration {name: '007_memory_ids_lower_case'}) DELETE s"
        )
        assert await graph.migrate() == ["007_memory_ids_lower_case"]
        records, _, _ = await driver.execute_query(
            "MATCH (m:Memory {namespace: $ns}) RETURN m.key AS key, m.id AS id, "
            "m.superseded_by AS superseded_by ORDER BY key",
            ns=namespace,
        )
    assert [tuple(r.values()) for r in records] == [
        (f"{namespace}-a", upper.lower(), None),
        (f"{namespace}-b", twin, upper.lower()),
        (f"{namespace}-c", twin.upper(), None),  # its lower-case form is taken: left as it was
    ]


async def test_a_migration_applied_moves_every_graph_version_and_none_applied_moves_none(
    memories: MemoryService, graph: GraphStore, settings: Settings, namespace: str
) -> None:
    await memories.save(namespace, save_input(key="walked"))
    before = (await graph.read("graph_version", namespace=namespace))[0]["version"]
    assert await graph.migrate() == []
    assert (await graph.read("graph_version", namespace=namespace))[0]["version"] == before
    async with open_driver(settings.neo4j) as driver:
        await driver.execute_query(
            "MATCH (s:SchemaMigration {name: '007_memory_ids_lower_case'}) DELETE s"
        )
    assert await graph.migrate() == ["007_memory_ids_lower_case"]
    after = (await graph.read("graph_version", namespace=namespace))[0]["version"]
    assert (len(before), len(after)) == (36, 36)
    assert after != before


async def test_an_update_with_nulls_leaves_those_fields_as_they_are(
    memories: MemoryService, namespace: str
) -> None:
    await memories.save(namespace, save_input(key="kept", title="T", type="decision", tags=["a"]))
    nulls = {"content": None, "title": None, "type": None, "tags": None, "metadata": None}
    updated = await memories.update(namespace, "kept", UpdateInput.model_validate(nulls))
    memory = updated["memory"]
    assert (memory["content"], memory["title"], memory["type"], memory["tags"]) == (
        "some content",
        "T",
        "decision",
        ["a"],
    )


async def test_content_over_the_limit_is_refused_not_truncated(
    memories: MemoryService, namespace: str
) -> None:
    limit = memories.settings.limits.max_content_bytes
    with pytest.raises(PayloadTooLarge) as caught:
        await memories.save(namespace, save_input(content="é" * (limit // 2 + 1)))
    assert caught.value.message == (
        f"content is {2 * (limit // 2 + 1)} bytes; the limit is {limit} bytes "
        "(limits.max_content_bytes)"
    )


async def test_renaming_to_a_key_taken_by_another_memory_is_a_conflict(
    memories: MemoryService, namespace: str
) -> None:
    first = await memories.save(namespace, save_input(key="one"))
    await memories.save(namespace, save_input(key="two"))
    with pytest.raises(Conflict):
        await memories.save(namespace, save_input(id=first["memory"]["id"], key="two"))
    renamed = await memories.save(namespace, save_input(id=first["memory"]["id"], key="uno"))
    assert (renamed["created"], renamed["memory"]["key"]) == (False, "uno")


async def test_disabled_memory_refuses_with_the_exact_message(
    memories: MemoryService, namespace: str
) -> None:
    settings = memories.settings.model_copy(
        update={"memory": memories.settings.memory.model_copy(update={"enabled": False})}
    )
    service = MemoryService(
        settings, Stores(memories.stores.graph, memories.stores.vectors, memories.stores.embedder)
    )
    with pytest.raises(MemoryDisabled) as caught:
        await service.save(namespace, save_input())
    assert caught.value.message == (
        "Memory system is not enabled. Set memory.enabled=true in mnemograph.toml "
        "or MNEMO_MEMORY__ENABLED=true"
    )


async def test_migrations_are_idempotent_and_indexes_online(graph: GraphStore) -> None:
    assert await graph.migrate() == []
    states = await graph.index_states()
    for name in (
        "memory_namespace_created_at",
        "memory_id_unique",
        "memory_context_state",
        "memory_context_store_created_at",
        "memory_context_store_since",
        "unnamed_storage_context_state",
    ):
        assert states[name] == "ONLINE"
    assert "memory_fulltext" not in states  # one per namespace instead (test_keyword_isolation)


async def test_more_references_than_max_refs_are_refused_by_the_limit_that_bounds_them(
    memories: MemoryService, namespace: str
) -> None:
    with pytest.raises(InvalidParameter) as caught:
        await memories.get(namespace, keys=[f"k{i}" for i in range(1001)])
    assert caught.value.message == (
        "Invalid ids/keys value: 1001 given; at most 1000 (limits.max_refs) per call"
    )
