"""Keyword scores count the caller's namespace alone: each namespace has its own fulltext indexes,
so another namespace's memories change no BM25 statistic, score or order (docs/search.md)."""

from __future__ import annotations

import uuid
from typing import Any

from bench.common import open_driver
from service.core.memories import MemoryService
from service.core.models import SaveInput
from service.core.read.retrieval import Retrieval
from service.core.search_inputs import FulltextInput, RetrieveInput, SearchInput
from service.stores.cypher_library import namespace_scope
from service.stores.graph_store import GraphStore
from tests.conftest import retrieval_over, save_in_batches

OWN = [
    SaveInput(key="alpha-only", title="alpha notes", content="alpha gamma delta"),
    SaveInput(key="beta-twice", title="beta notes", content="beta beta gamma"),
    SaveInput(key="both", title="mixed notes", content="alpha beta epsilon"),
    *(SaveInput(key=f"filler-{i}", content=f"unrelated filler text number {i}") for i in range(5)),
]
NOISE = [
    SaveInput(key=f"noise-{i}", content=f"alpha alpha alpha noise document {i} zeta")
    for i in range(300)
]


async def keyword_answers(retrieval: Retrieval, namespace: str) -> dict[str, list[Any]]:
    """(key, score) in order from memory_fulltext_search, memory_search bm25 and the keyword
    channel of retrieve_context, for the query "alpha beta"."""
    fulltext = await retrieval.fulltext(namespace, FulltextInput(keywords=["alpha", "beta"]))
    bm25 = await retrieval.search(namespace, SearchInput(query="alpha beta", mode="bm25"))
    context = await retrieval.retrieve(
        namespace, RetrieveInput(query="alpha beta", search_mode="keyword")
    )
    return {
        "fulltext": [(r["key"], r["score"]) for r in fulltext["results"]],
        "bm25": [(r["key"], r["score"]) for r in bm25["results"]],
        "keyword": [(r["key"], r["scores"]["keyword"]) for r in context["results"]],
    }


async def test_keyword_scores_and_order_ignore_a_large_noisy_namespace(
    memories: MemoryService, namespace: str
) -> None:
    retrieval = retrieval_over(memories)
    await save_in_batches(memories, namespace, OWN)
    alone = await keyword_answers(retrieval, namespace)
    await save_in_batches(memories, f"{namespace}-noise-{uuid.uuid4().hex[:8]}", NOISE)
    beside_noise = await keyword_answers(retrieval, namespace)
    assert [key for key, _ in alone["fulltext"]] == ["beta-twice", "both", "alpha-only"]
    assert [key for key, _ in alone["bm25"]] == ["beta-twice", "both", "alpha-only"]
    assert {key for key, _ in alone["keyword"]} == {"beta-twice", "both", "alpha-only"}
    assert beside_noise == alone


async def test_a_namespace_gets_its_indexes_on_its_first_keyword_read(
    memories: MemoryService, graph: GraphStore, namespace: str
) -> None:
    scope = namespace_scope(namespace)
    assert scope == {
        "namespace_label": f"NS_{namespace}",
        "text_index": f"memory_fulltext__{namespace}",
        "context_index": f"memory_context_fulltext__{namespace}",
    }
    await memories.save(namespace, SaveInput(key="k", content="kiwifruit orchard"))
    before = await graph.index_states()
    found = await retrieval_over(memories).fulltext(
        namespace, FulltextInput(keywords=["kiwifruit"])
    )
    after = await graph.index_states()
    assert scope["text_index"] not in before
    assert (after[scope["text_index"]], after[scope["context_index"]]) == ("ONLINE", "ONLINE")
    assert [r["key"] for r in found["results"]] == ["k"]
    assert "memory_fulltext" not in after
    assert "memory_context_fulltext" not in after


async def test_a_dropped_namespace_index_is_made_again_on_the_next_read(
    memories: MemoryService, graph: GraphStore, namespace: str
) -> None:
    await memories.save(namespace, SaveInput(key="k", content="quokka sighting"))
    retrieval = retrieval_over(memories)
    await retrieval.fulltext(namespace, FulltextInput(keywords=["quokka"]))
    async with open_driver(memories.settings.neo4j) as driver:
        await driver.execute_query(
            "DROP INDEX $name", name=namespace_scope(namespace)["text_index"]
        )
    found = await retrieval.fulltext(namespace, FulltextInput(keywords=["quokka"]))
    assert [r["key"] for r in found["results"]] == ["k"]
    assert (await graph.index_states())[namespace_scope(namespace)["text_index"]] == "ONLINE"


async def test_the_indexes_of_a_namespace_left_empty_are_dropped_until_it_is_read_again(
    memories: MemoryService, graph: GraphStore, namespace: str
) -> None:
    kept = f"{namespace}-kept"
    retrieval = retrieval_over(memories)
    for each in (namespace, kept):
        await memories.save(each, SaveInput(key="k", content="wombat burrow"))
        await retrieval.fulltext(each, FulltextInput(keywords=["wombat"]))
    await memories.delete(namespace, keys=["k"])
    dropped = await graph.drop_empty_keyword_indexes()
    states = await graph.index_states()
    emptied, still = namespace_scope(namespace), namespace_scope(kept)
    assert dropped >= 2
    assert [emptied[i] in states for i in ("text_index", "context_index")] == [False, False]
    assert [states[still[i]] for i in ("text_index", "context_index")] == ["ONLINE", "ONLINE"]
    await memories.save(namespace, SaveInput(key="back", content="wombat again"))
    found = await retrieval.fulltext(namespace, FulltextInput(keywords=["wombat"]))
    assert [r["key"] for r in found["results"]] == ["back"]
    assert (await graph.index_states())[emptied["text_index"]] == "ONLINE"


async def test_every_memory_carries_its_namespace_label(
    memories: MemoryService, namespace: str
) -> None:
    await memories.save(namespace, SaveInput(key="one", content="saved alone"))
    await save_in_batches(memories, namespace, [SaveInput(key="two", content="saved in a batch")])
    async with open_driver(memories.settings.neo4j) as driver:
        records, _, _ = await driver.execute_query(
            "MATCH (m:Memory {namespace: $namespace}) RETURN m.key AS key, labels(m) AS labels "
            "ORDER BY key",
            namespace=namespace,
        )
    assert [(r["key"], sorted(r["labels"])) for r in records] == [
        ("one", ["Memory", f"NS_{namespace}"]),
        ("two", ["Memory", f"NS_{namespace}"]),
    ]


async def test_the_migration_labels_memories_saved_before_it(
    memories: MemoryService, graph: GraphStore, namespace: str
) -> None:
    await memories.save(namespace, SaveInput(key="old", content="wombat burrow"))
    async with open_driver(memories.settings.neo4j) as driver:
        await driver.execute_query(
            "MATCH (m:Memory {namespace: $namespace}) REMOVE m:$('NS_' + $namespace) "
            "WITH count(*) AS done "
            "MATCH (s:SchemaMigration {name: '009_namespace_keyword_indexes'}) DETACH DELETE s",
            namespace=namespace,
        )
    unlabelled = await retrieval_over(memories).fulltext(
        namespace, FulltextInput(keywords=["wombat"])
    )
    assert await graph.migrate() == ["009_namespace_keyword_indexes"]
    found = await retrieval_over(memories).fulltext(namespace, FulltextInput(keywords=["wombat"]))
    assert unlabelled["results"] == []
    assert [r["key"] for r in found["results"]] == ["old"]
