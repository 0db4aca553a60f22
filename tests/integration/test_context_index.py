"""The graph-contextual representation follows saves, links and deletes, and feeds the
context channels of retrieve_context.

The e2e server shares this session's Neo4j and its own indexer may refresh these memories
first (writing their context vectors to its own store), so the tests read the Neo4j side: the
context text and its fulltext channel."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from service.config import Settings
from service.core.memories import MemoryService
from service.core.models import LinkSpec, SaveInput
from service.core.read.retrieval import Retrieval
from service.core.search_inputs import RetrieveInput
from service.core.stores import Stores
from service.core.upkeep import context_index as context_index_module
from service.core.upkeep.context_index import ContextIndex, background
from service.core.upkeep.reconcile import Reconciler
from service.core.write.batch import BatchSaver
from service.filters import MemoryFilters
from service.stores.embeddings import LocalMiniLM
from service.stores.graph_store import GraphStore
from service.stores.vector_store import EdgeVectorStore, VectorFilter

QUESTION = "what did the veterinarian say about Biscuit?"
ANSWER = "he needs an operation on his knee next Tuesday"


def weighing_keyword_context(retrieval: Retrieval) -> Retrieval:
    """Hybrid with the keyword_context channel weighed in at 0.5 whatever its default (a channel
    of weight 0 does not run), so these tests do not depend on the tuned weights."""
    settings = retrieval.settings
    fusion = settings.search.fusion.model_copy(update={"keyword_context": 0.5})
    search = settings.search.model_copy(update={"fusion": fusion})
    return Retrieval(settings.model_copy(update={"search": search}), retrieval.channels.stores)


async def context_scores(
    retrieval: Retrieval, namespace: str, query: str
) -> dict[str, dict[str, float]]:
    weighed = weighing_keyword_context(retrieval)
    result = await weighed.retrieve(
        namespace, RetrieveInput(query=query, sort_by="relevance", limit=20)
    )
    return {item["key"]: item["scores"] for item in result["results"]}


async def save_dialogue(memories: MemoryService, namespace: str) -> None:
    await memories.save(namespace, SaveInput(key="ask", content=QUESTION))
    await memories.save(
        namespace,
        SaveInput(key="answer", content=ANSWER, links=[LinkSpec(key="ask", type="next")]),
    )


async def test_a_reply_is_found_by_the_words_of_the_turn_it_answers(
    memories: MemoryService, retrieval: Retrieval, context_index: ContextIndex, namespace: str
) -> None:
    await save_dialogue(memories, namespace)
    await context_index.refresh_all()  # (a service on the same Neo4j may have done it already)
    assert await context_index.backlog(namespace) == 0
    scores = await context_scores(retrieval, namespace, "Biscuit veterinarian")
    assert "keyword" not in scores["answer"]
    assert scores["answer"]["keyword_context"] > 0
    assert scores["ask"]["keyword"] > 0


async def test_deleting_a_neighbour_refreshes_the_context_without_it(
    memories: MemoryService, retrieval: Retrieval, context_index: ContextIndex, namespace: str
) -> None:
    await save_dialogue(memories, namespace)
    await context_index.refresh_all()
    await memories.delete(namespace, keys=["ask"])
    await context_index.refresh_all()
    scores = await context_scores(retrieval, namespace, "Biscuit veterinarian")
    assert "keyword_context" not in scores.get("answer", {})


async def test_changing_a_turn_marks_its_neighbour_for_refresh(
    memories: MemoryService, retrieval: Retrieval, context_index: ContextIndex, namespace: str
) -> None:
    await save_dialogue(memories, namespace)
    await context_index.refresh_all()
    await memories.save(namespace, SaveInput(key="ask", content="how is the weather in Lisbon?"))
    await context_index.refresh_all()
    scores = await context_scores(retrieval, namespace, "Lisbon weather")
    assert scores["answer"]["keyword_context"] > 0
    assert "keyword_context" not in (await context_scores(retrieval, namespace, "Biscuit")).get(
        "answer", {}
    )


async def test_reconcile_leaves_the_context_backlog_to_the_indexer_unless_told_to_drain_it(
    settings: Settings,
    graph: GraphStore,
    edge_store: EdgeVectorStore,
    embedder: LocalMiniLM,
    context_index: ContextIndex,
    namespace: str,
) -> None:
    turns = [
        {"key": f"turn-{i:03d}", "content": f"turn {i} of a long talk about sea kayaks"}
        | ({"links": [{"key": f"turn-{i - 1:03d}", "type": "next"}]} if i else {})
        for i in range(100)
    ]
    saved = await BatchSaver(settings, Stores(graph, edge_store, embedder)).save(namespace, turns)
    reconciler = Reconciler(graph, edge_store, embedder, context_index)
    assert saved["saved"] == 100
    await reconciler.run(drain_context=False)  # what start-up does: it must not wait for this
    # (the e2e server's indexer shares this Neo4j and may have refreshed a chunk of 4 by now)
    assert await context_index.backlog(namespace) > 90
    await reconciler.run()
    assert await context_index.backlog(namespace) == 0


async def test_a_turn_is_found_by_the_words_of_a_turn_two_links_away_and_follows_its_changes(
    memories: MemoryService, retrieval: Retrieval, context_index: ContextIndex, namespace: str
) -> None:
    await save_dialogue(memories, namespace)
    thanks = SaveInput(
        key="thanks", content="thanks for telling me", links=[LinkSpec(key="answer")]
    )
    await memories.save(namespace, thanks)
    await context_index.refresh_all()
    assert (await context_scores(retrieval, namespace, "Biscuit veterinarian"))["thanks"][
        "keyword_context"
    ] > 0
    await memories.save(namespace, SaveInput(key="ask", content="how is the weather in Lisbon?"))
    await context_index.refresh_all()
    assert (await context_scores(retrieval, namespace, "Lisbon weather"))["thanks"][
        "keyword_context"
    ] > 0
    assert "keyword_context" not in (await context_scores(retrieval, namespace, "Biscuit")).get(
        "thanks", {}
    )


async def test_a_hub_of_more_than_four_links_passes_no_words_between_its_neighbours(
    memories: MemoryService, retrieval: Retrieval, context_index: ContextIndex, namespace: str
) -> None:
    await memories.save(namespace, SaveInput(key="hub", content="weekly planning notes"))
    topics = ["kayak", "violin", "sourdough", "glacier", "origami"]
    for topic in topics:
        linked = SaveInput(key=topic, content=f"a note on {topic}", links=[LinkSpec(key="hub")])
        await memories.save(namespace, linked)
    await context_index.refresh_all()
    scores = await context_scores(retrieval, namespace, "origami")
    assert sorted(key for key, s in scores.items() if "keyword_context" in s) == ["hub", "origami"]
    await memories.delete(namespace, keys=["glacier"])  # four links left: the hub passes words
    await context_index.refresh_all()
    scores = await context_scores(retrieval, namespace, "origami")
    assert sorted(key for key, s in scores.items() if "keyword_context" in s) == [
        "hub", "kayak", "origami", "sourdough", "violin",
    ]  # fmt: skip


async def test_a_saved_turn_is_searchable_by_its_context_before_any_model_run(
    memories: MemoryService,
    retrieval: Retrieval,
    context_index: ContextIndex,
    embedder: LocalMiniLM,
    namespace: str,
) -> None:
    await save_dialogue(memories, namespace)
    waiting = await context_index.backlog_details(namespace)
    assert (waiting.pending, waiting.approximate) == (2, 0)
    while await context_index.approximate():  # the first pass: no model run
        pass
    waiting = await context_index.backlog_details(namespace)
    assert (waiting.pending, waiting.approximate) == (0, 2)
    scores = (await context_scores(retrieval, namespace, "Biscuit veterinarian"))["answer"]
    assert scores["keyword_context"] > 0
    answer = (await memories.get(namespace, keys=["answer"]))["memories"][0]["id"]
    own = (await memories.stores.vectors.vectors_of([answer]))[answer]
    mean = (await context_index.vectors.vectors_of([answer]))[answer]
    embedded = (await embedder.embed([f"{QUESTION}\n{ANSWER}"]))[0]
    assert 0.5 < float(own @ mean) < 0.99
    while await context_index.embed():  # the second pass: the text's embedding
        pass
    assert await context_index.backlog(namespace) == 0
    final = (await context_index.vectors.vectors_of([answer]))[answer]
    assert float(final @ embedded) > 0.999


async def test_a_context_too_long_to_be_read_whole_keeps_the_mean_of_its_parts(
    memories: MemoryService, context_index: ContextIndex, namespace: str
) -> None:
    long_answer = " ".join([ANSWER] * 15)  # 704 characters: more than one part may hold
    await memories.save(namespace, SaveInput(key="ask", content=QUESTION))
    linked = [LinkSpec(key="ask", type="next")]
    await memories.save(namespace, SaveInput(key="answer", content=long_answer, links=linked))
    averaged = context_index.counts["averaged"]
    await first_pass(context_index)
    assert await context_index.backlog(namespace) == 0  # final: no second pass waits
    assert context_index.counts["averaged"] - averaged == 2
    ids = await memories.reader.resolve(namespace, ids=[], keys=["ask", "answer"])
    own = await memories.stores.vectors.vectors_of(list(ids.values()))
    equal_mean = own[ids["ask"]] + own[ids["answer"]]
    equal_mean /= np.linalg.norm(equal_mean)
    context = await context_index.vectors.vectors_of(list(ids.values()))
    assert context[ids["answer"]].tolist() == pytest.approx(equal_mean.tolist(), abs=1e-6)
    assert context[ids["ask"]].tolist() == pytest.approx(equal_mean.tolist(), abs=1e-6)


async def test_stats_report_the_context_backlog_of_the_namespace(
    memories: MemoryService, context_index: ContextIndex, namespace: str
) -> None:
    await save_dialogue(memories, namespace)
    details = (await memories.lifecycle.stats(namespace))["indexDetails"]
    assert (details["contextPending"], details["contextApproximate"]) == (2, 0)
    assert 0 <= details["contextOldestWaitS"] < 60
    await context_index.refresh_all()
    details = (await memories.lifecycle.stats(namespace))["indexDetails"]
    assert (details["contextPending"], details["contextApproximate"]) == (0, 0)
    assert details["contextOldestWaitS"] == 0


async def test_the_background_indexer_wakes_when_a_write_marks_contexts_pending(
    memories: MemoryService,
    context_index: ContextIndex,
    namespace: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(context_index_module, "IDLE_S", 3600.0)  # no polling: only the wake
    async with background(context_index):
        await asyncio.sleep(0.5)  # its first look found nothing of this namespace; it waits
        await save_dialogue(memories, namespace)
        for _ in range(200):
            if (await context_index.backlog_details(namespace)).pending == 0:
                break
            await asyncio.sleep(0.05)
    assert (await context_index.backlog_details(namespace)).pending == 0


async def first_pass(context_index: ContextIndex) -> None:
    while await context_index.approximate():
        pass


async def test_a_context_whose_text_and_payload_did_not_change_keeps_its_embedded_vector(
    memories: MemoryService, context_index: ContextIndex, namespace: str
) -> None:
    await save_dialogue(memories, namespace)
    await context_index.refresh_all()
    ids = (await memories.reader.resolve(namespace, ids=[], keys=["ask", "answer"])).values()
    before = await context_index.vectors.vectors_of(list(ids))
    await memories.link(namespace, "answer", "ask", 0.7, "next")  # a weight: no word changes
    assert (await context_index.backlog_details(namespace)).pending == 2
    await first_pass(context_index)
    waiting = await context_index.backlog_details(namespace)
    assert (waiting.pending, waiting.approximate) == (0, 0)  # done without a model run
    after = await context_index.vectors.vectors_of(list(ids))
    assert {i: v.tolist() for i, v in after.items()} == {i: v.tolist() for i, v in before.items()}


async def test_a_context_whose_payload_changed_is_embedded_again_with_it(
    memories: MemoryService, context_index: ContextIndex, embedder: LocalMiniLM, namespace: str
) -> None:
    await save_dialogue(memories, namespace)
    await context_index.refresh_all()
    answer = SaveInput(
        key="answer", content=ANSWER, tags=["vet"], links=[LinkSpec(key="ask", type="next")]
    )
    await memories.save(namespace, answer)
    await first_pass(context_index)
    waiting = await context_index.backlog_details(namespace)
    assert (waiting.pending, waiting.approximate) == (0, 1)  # "ask" reads no tag: kept
    await context_index.refresh_all()
    answer_id = (await memories.get(namespace, keys=["answer"]))["memories"][0]["id"]
    query = (await embedder.embed([ANSWER]))[0]
    tagged = VectorFilter(namespace, MemoryFilters(tags=("vet",)))
    hits = await context_index.vectors.search(query, tagged, 5)
    assert [hit.id for hit in hits] == [answer_id]
