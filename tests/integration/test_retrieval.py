"""memory_search, memory_fulltext_search and retrieve_context against the real Neo4j and embedder,
each test once over Qdrant Edge and once over a real Qdrant server."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from service.config import Settings
from service.core.memories import MemoryService
from service.core.models import LinkSpec, SaveInput
from service.core.read.fusion import bm25_of
from service.core.read.retrieval import Retrieval
from service.core.search_inputs import (
    FulltextInput,
    RetrieveFilters,
    RetrieveInput,
    SearchInput,
    SearchMode,
)
from service.core.stores import Stores
from service.errors import InvalidParameter
from service.filters import MemoryFilters
from service.stores.graph_store import GraphStore
from service.stores.vector_store import EdgeVectorStore
from tests.conftest import retrieval_over, save_in_batches


@pytest.fixture
def memories(engine_memories: MemoryService) -> MemoryService:
    return engine_memories


@pytest.fixture
def retrieval(memories: MemoryService) -> Retrieval:
    return retrieval_over(memories)


@pytest.fixture
def retrieval_with(memories: MemoryService) -> Callable[[Settings], Retrieval]:
    return lambda settings: retrieval_over(memories, settings)


CORPUS: list[dict[str, Any]] = [
    {
        "key": "auth-bug",
        "type": "bugfix",
        "tags": ["auth", "login"],
        "score": 90,
        "title": "Login fails after token refresh",
        "content": "Users were logged out because the OAuth refresh token expired early.",
    },
    {
        "key": "db-choice",
        "type": "decision",
        "tags": ["architecture"],
        "score": 80,
        "title": "Use Neo4j for the memory graph",
        "content": "We store memories and weighted links in Neo4j; vectors live in Qdrant.",
    },
    {
        "key": "cafe-notes",
        "type": "note",
        "tags": ["food"],
        "score": 20,
        "title": "Café menu",
        "content": "The café near the office serves crème brûlée on Fridays.",
    },
    {
        "key": "cjk-note",
        "type": "note",
        "tags": ["i18n"],
        "title": "数据库",
        "content": "我们使用数据库存储记忆和链接。",
    },
    {
        "key": "deploy",
        "type": "design",
        "tags": ["ops"],
        "score": 60,
        "title": "Deployment with docker compose",
        "content": "Neo4j, Qdrant and the service run under docker compose with health checks.",
    },
]


async def seed(memories: MemoryService, namespace: str) -> dict[str, str]:
    ids: dict[str, str] = {}
    for item in CORPUS:
        saved = await memories.save(namespace, SaveInput.model_validate(item))
        ids[item["key"]] = saved["memory"]["id"]
    return ids


def own_word(stem: str, namespace: str) -> str:
    """A word no other test's memories hold: `stem` and the namespace's hex spelt in letters
    (Lucene's index spans namespaces, and each test runs once per vector engine)."""
    return stem + namespace[-8:].translate(str.maketrans("0123456789", "ghijklmnop"))


def keys(results: Sequence[Mapping[str, Any]]) -> list[str]:
    return [r["key"] for r in results]


# -- memory_search ---------------------------------------------------------------------------


async def test_bm25_search_ranks_keyword_matches_with_descending_scores(
    memories: MemoryService, retrieval: Retrieval, namespace: str
) -> None:
    await seed(memories, namespace)
    result = await retrieval.search(namespace, SearchInput(query="neo4j qdrant", mode="bm25"))
    assert set(keys(result["results"])) == {"db-choice", "deploy"}
    scores = [r["score"] for r in result["results"]]
    assert scores == sorted(scores, reverse=True)
    assert {r["matchType"] for r in result["results"]} == {"bm25"}
    assert result["total"] == 2


async def test_vector_search_finds_a_paraphrase_with_no_shared_words(
    memories: MemoryService, retrieval: Retrieval, namespace: str
) -> None:
    await seed(memories, namespace)
    result = await retrieval.search(
        namespace, SearchInput(query="people get signed out unexpectedly", mode="vector")
    )
    assert keys(result["results"])[0] == "auth-bug"
    assert result["results"][0]["matchType"] == "vector"
    scores = [r["score"] for r in result["results"]]
    assert scores == sorted(scores, reverse=True)


async def test_hybrid_search_fuses_both_engines_best_first(
    memories: MemoryService, retrieval: Retrieval, namespace: str
) -> None:
    await seed(memories, namespace)
    result = await retrieval.search(
        namespace, SearchInput(query="where do we store the memory graph? neo4j")
    )
    first = result["results"][0]
    assert (first["key"], first["matchType"]) == ("db-choice", "both")
    scores = [r["score"] for r in result["results"]]
    assert scores == sorted(scores, reverse=True)
    assert first["memory_score"] == 80.0
    assert set(first) == {
        "id",
        "key",
        "title",
        "summary",
        "type",
        "score",
        "matchType",
        "createdAt",
        "memory_score",
        "links",
    }


async def test_search_counts_total_before_paging(
    memories: MemoryService, retrieval: Retrieval, namespace: str
) -> None:
    await seed(memories, namespace)
    whole = await retrieval.search(
        namespace, SearchInput(query="neo4j qdrant docker", mode="bm25", limit=10)
    )
    page = await retrieval.search(
        namespace, SearchInput(query="neo4j qdrant docker", mode="bm25", limit=1, offset=1)
    )
    assert page["total"] == whole["total"] == 2
    assert keys(page["results"]) == keys(whole["results"])[1:2]
    assert (page["limit"], page["offset"]) == (1, 1)


async def test_search_type_and_tag_filters_apply_in_both_engines(
    memories: MemoryService, retrieval: Retrieval, namespace: str
) -> None:
    await seed(memories, namespace)
    modes: tuple[SearchMode, ...] = ("bm25", "vector", "hybrid")
    for mode in modes:
        by_type = await retrieval.search(
            namespace, SearchInput(query="neo4j qdrant docker", mode=mode, type="design")
        )
        assert keys(by_type["results"]) == ["deploy"], mode
        by_tag = await retrieval.search(
            namespace, SearchInput(query="neo4j graph", mode=mode, tags=["architecture"])
        )
        assert keys(by_tag["results"]) == ["db-choice"], mode


# -- memory_fulltext_search --------------------------------------------------------------------


async def test_fulltext_or_matches_any_keyword_and_and_needs_all(
    memories: MemoryService, retrieval: Retrieval, namespace: str
) -> None:
    await seed(memories, namespace)
    either = await retrieval.fulltext(
        namespace, FulltextInput(keywords=["oauth", "docker"], operator="OR")
    )
    both = await retrieval.fulltext(
        namespace, FulltextInput(keywords=["neo4j", "docker"], operator="AND")
    )
    assert set(keys(either["results"])) == {"auth-bug", "deploy"}
    assert keys(both["results"]) == ["deploy"]
    assert both["total"] == 1


async def test_fulltext_highlights_terms_in_an_escaped_excerpt(
    memories: MemoryService, retrieval: Retrieval, namespace: str
) -> None:
    await memories.save(namespace, SaveInput(key="html", content="Use <b>Neo4j</b> & neo4j"))
    result = await retrieval.fulltext(namespace, FulltextInput(keywords=["neo4j"]))
    assert result["results"][0]["excerpt"] == (
        "Use &lt;b&gt;<mark>Neo4j</mark>&lt;/b&gt; &amp; <mark>neo4j</mark>"
    )


async def test_fulltext_query_syntax_is_just_text(
    memories: MemoryService, retrieval: Retrieval, namespace: str
) -> None:
    await seed(memories, namespace)
    assert (await retrieval.fulltext(namespace, FulltextInput(keywords=["foo) OR (*"])))[
        "results"
    ] == []
    assert (await retrieval.fulltext(namespace, FulltextInput(keywords=["*:*", "content:neo4j~"])))[
        "results"
    ] == []


async def test_fulltext_works_for_cjk_and_accents(
    memories: MemoryService, retrieval: Retrieval, namespace: str
) -> None:
    await seed(memories, namespace)
    cjk = await retrieval.fulltext(namespace, FulltextInput(keywords=["数据库"]))
    assert keys(cjk["results"]) == ["cjk-note"]
    assert "<mark>数据库</mark>" in cjk["results"][0]["excerpt"]
    folded = await retrieval.fulltext(namespace, FulltextInput(keywords=["creme brulee"]))
    assert keys(folded["results"]) == ["cafe-notes"]
    assert "<mark>crème brûlée</mark>" in folded["results"][0]["excerpt"]


# -- retrieve_context --------------------------------------------------------------------------


async def build_chain(memories: MemoryService, namespace: str) -> None:
    """root → one → two → three, plus an unlinked `island`."""
    for key in ("three", "two", "one"):
        await memories.save(namespace, SaveInput(key=key, content=f"chain memory {key}"))
    await memories.save(namespace, SaveInput(key="island", content="unrelated"))
    await memories.link(namespace, "one", "two")
    await memories.link(namespace, "three", "two")  # reached against the link direction
    await memories.save(
        namespace, SaveInput(key="root", content="chain start", links=[LinkSpec(key="one")])
    )


async def test_graph_scores_follow_one_over_hops_plus_half(
    memories: MemoryService, retrieval: Retrieval, namespace: str
) -> None:
    await build_chain(memories, namespace)
    result = await retrieval.retrieve(
        namespace,
        RetrieveInput(query="root", search_mode="graph", max_hops=3, sort_by="relevance"),
    )
    items = [
        (r["key"], round(r["score"], 3), r["hop_distance"], r["path"], r["source"])
        for r in result["results"]
    ]
    assert items == [
        ("one", 0.667, 1, ["root", "one"], "graph"),
        ("two", 0.4, 2, ["root", "one", "two"], "graph"),
        ("three", 0.286, 3, ["root", "one", "two", "three"], "graph"),
    ]
    assert result["search_mode_used"] == "graph"


async def test_graph_mode_keeps_the_raw_scores_of_the_channels_that_seeded_it(
    memories: MemoryService, retrieval: Retrieval, namespace: str
) -> None:
    # Five strong keyword hits are the seeds; a weak one, not a seed, is one link from the first.
    for index in range(1, 6):
        await memories.save(namespace, SaveInput(key=f"w{index}", content="wombat wombat wombat"))
    weak = "A long note that names a wombat once among many other words about burrows and grass"
    await memories.save(namespace, SaveInput(key="w6", content=weak))
    await memories.link(namespace, "w1", "w6")
    result = await retrieval.retrieve(
        namespace, RetrieveInput(query="wombat", search_mode="graph", max_hops=1)
    )
    assert [(r["key"], sorted(r["scores"]), r["source"]) for r in result["results"]] == [
        ("w6", ["graph", "keyword"], "graph")
    ]
    assert result["results"][0]["score"] == pytest.approx(1 / 1.5)
    assert 0 < result["results"][0]["scores"]["keyword"] < 1


async def test_a_seed_linked_from_a_stronger_seed_shows_that_graph_evidence_in_hybrid(
    memories: MemoryService, retrieval: Retrieval, namespace: str
) -> None:
    # The reply ranks first; the question it answers is a weaker hit, so both are seeds, and
    # the question is one link (weight 0.9) from the reply.
    word = own_word("kestrel", namespace)
    reply = (
        f"The {word} nests on the north tower; {word} chicks hatched in May, said the {word} warden"
    )
    await memories.save(
        namespace, SaveInput(key="question", content=f"Where does the {word} live?")
    )
    await memories.save(
        namespace,
        SaveInput(key="reply", content=reply, links=[LinkSpec(key="question", weight=0.9)]),
    )
    result = await retrieval.retrieve(
        namespace, RetrieveInput(query=f"{word} nest tower", sort_by="relevance", max_hops=1)
    )
    found = {
        r["key"]: (r["hop_distance"], r["path"], r["scores"].get("graph"))
        for r in result["results"]
    }
    # (The question may now outrank the reply: its graph evidence joins its fused relevance.)
    assert sorted(keys(result["results"])) == ["question", "reply"]
    assert found["reply"] == (None, None, None)
    assert found["question"] == (1, ["reply", "question"], pytest.approx(1 / 1.5))


async def test_graph_mode_seeds_the_exact_key_first_and_returns_a_linked_seed(
    memories: MemoryService, retrieval: Retrieval, namespace: str
) -> None:
    # The query is plan's key; budget shares the key's words, so it is a weaker seed that the
    # plan reaches in one link: it is returned with that path; the plan itself is not.
    word = own_word("orchard", namespace)
    await memories.save(namespace, SaveInput(key=f"{word}-budget", content="Spend on ladders"))
    await memories.save(
        namespace,
        SaveInput(
            key=f"{word}-plan",
            content="Plant pears in spring",
            links=[LinkSpec(key=f"{word}-budget", weight=0.7)],
        ),
    )
    result = await retrieval.retrieve(
        namespace, RetrieveInput(query=f"{word}-plan", search_mode="graph", sort_by="relevance")
    )
    assert [(r["key"], r["hop_distance"], r["path"], r["score"]) for r in result["results"]] == [
        (f"{word}-budget", 1, [f"{word}-plan", f"{word}-budget"], pytest.approx(1 / 1.5))
    ]


async def test_max_hops_bounds_the_traversal(
    memories: MemoryService, retrieval: Retrieval, namespace: str
) -> None:
    await build_chain(memories, namespace)
    result = await retrieval.retrieve(
        namespace, RetrieveInput(query="root", search_mode="graph", max_hops=1)
    )
    assert keys(result["results"]) == ["one"]


async def test_timestamp_order_is_newest_first_and_relevance_is_score_desc(
    memories: MemoryService, retrieval: Retrieval, namespace: str
) -> None:
    await build_chain(memories, namespace)
    by_time = await retrieval.retrieve(
        namespace, RetrieveInput(query="root", search_mode="graph", max_hops=3)
    )
    by_score = await retrieval.retrieve(
        namespace,
        RetrieveInput(query="root", search_mode="graph", max_hops=3, sort_by="relevance"),
    )
    assert by_time["sort_by"] == "timestamp"
    assert keys(by_time["results"]) == ["one", "two", "three"]  # saved three, two, one
    created = [str(r["created_at"]) for r in by_time["results"]]
    assert created == sorted(created, reverse=True)
    assert keys(by_score["results"]) == ["one", "two", "three"]
    assert [r["score"] for r in by_score["results"]] == sorted(
        [r["score"] for r in by_score["results"]], reverse=True
    )


async def test_sort_by_applies_after_keeping_the_limit_best(
    memories: MemoryService, retrieval: Retrieval, namespace: str
) -> None:
    await build_chain(memories, namespace)
    result = await retrieval.retrieve(
        namespace, RetrieveInput(query="root", search_mode="graph", max_hops=3, limit=2)
    )
    assert keys(result["results"]) == ["one", "two"]
    assert result["total_count"] == 3


async def test_hybrid_merges_channels_with_kv_and_graph(
    memories: MemoryService, retrieval: Retrieval, namespace: str
) -> None:
    await build_chain(memories, namespace)
    result = await retrieval.retrieve(
        namespace, RetrieveInput(query="root", sort_by="relevance", max_hops=1)
    )
    first = result["results"][0]
    # keyword (weight 0.75, times its word coverage of the one-word query, BM25 / 2.0) and kv
    # (1.0) rank it first; vector does not find it, nor do the two context channels (no
    # contextual text is indexed here): (0.75 × coverage + 1.0) / (1 + 0.75 + 1 + 0.5 + 1.5 + 0.5).
    # BM25 depends on the whole index's statistics (other tests' memories too), so the coverage
    # is read from the reported keyword score rather than fixed here.
    assert (first["key"], first["source"]) == ("root", "kv")
    coverage = min(1.0, bm25_of(first["scores"]["keyword"], 2.0) / 2.0)
    assert 0 < coverage <= 1
    assert first["score"] == pytest.approx((0.75 * coverage + 1.0) / 5.25)
    assert first["scores"]["kv"] == 1.0
    one = next(r for r in result["results"] if r["key"] == "one")
    assert one["scores"]["graph"] == pytest.approx(1 / 1.5)
    assert one["hop_distance"] == 1
    assert result["warnings"] == []


async def test_kv_channel_scores_exact_keys_and_prefixes(
    memories: MemoryService, retrieval: Retrieval, namespace: str
) -> None:
    for key in ("proj", "proj-alpha", "other"):
        await memories.save(namespace, SaveInput(key=key, content="x"))
    result = await retrieval.retrieve(
        namespace, RetrieveInput(query="proj", search_mode="kv", sort_by="relevance")
    )
    assert [(r["key"], r["score"]) for r in result["results"]] == [
        ("proj", 1.0),
        ("proj-alpha", 0.9),
    ]
    tokens = await retrieval.retrieve(
        namespace, RetrieveInput(query="compare other and proj", search_mode="kv")
    )
    assert sorted((r["key"], r["score"]) for r in tokens["results"]) == [
        ("other", 1.0),
        ("proj", 1.0),
    ]


async def test_a_blank_query_is_no_key_prefix(
    memories: MemoryService, retrieval: Retrieval, namespace: str
) -> None:
    for key in ("proj", "other"):
        await memories.save(namespace, SaveInput(key=key, content="x"))
    kv = await retrieval.retrieve(namespace, RetrieveInput(query=" \t", search_mode="kv"))
    assert kv["results"] == []
    hybrid = await retrieval.retrieve(namespace, RetrieveInput(query="   "))
    assert [sorted(r["scores"]) for r in hybrid["results"]] == [["vector"], ["vector"]]


async def test_lexical_channels_reach_past_a_crowd_of_better_hits_in_another_namespace(
    memories: MemoryService, retrieval: Retrieval, namespace: str
) -> None:
    # 210 memories elsewhere match better: Lucene's first fetch (200) holds none of this one.
    crowd = [
        SaveInput(key=f"crowd-{i}", content="zorbulent zorbulent zorbulent zorbulent")
        for i in range(210)
    ]
    await save_in_batches(memories, f"{namespace}-crowd", crowd)
    await memories.save(
        namespace,
        SaveInput(key="zorbulent", content="A long note that says zorbulent once " + "x " * 40),
    )
    keyword = await retrieval.retrieve(
        namespace, RetrieveInput(query="zorbulent", search_mode="keyword")
    )
    assert [(r["key"], list(r["scores"])) for r in keyword["results"]] == [
        ("zorbulent", ["keyword"])
    ]
    hybrid = await retrieval.retrieve(namespace, RetrieveInput(query="zorbulent"))
    assert keys(hybrid["results"]) == ["zorbulent"]
    scores = hybrid["results"][0]["scores"]
    assert (scores["keyword"], scores["kv"]) == (keyword["results"][0]["score"], 1.0)
    # More hits than a page needs: the first fetch counts up to search.count_limit (1,000).
    crowded = f"{namespace}-crowd"
    bm25 = await retrieval.search(crowded, SearchInput(query="zorbulent", mode="bm25"))
    assert (bm25["total"], bm25["total_capped"], len(bm25["results"])) == (210, False, 10)
    fulltext = await retrieval.fulltext(crowded, FulltextInput(keywords=["zorbulent"], limit=5))
    assert (fulltext["total"], fulltext["total_capped"], len(fulltext["results"])) == (
        210,
        False,
        5,
    )


async def test_totals_are_exact_up_to_the_count_limit_and_flagged_beyond_it(
    settings: Settings,
    retrieval_with: Callable[[Settings], Retrieval],
    memories: MemoryService,
    namespace: str,
) -> None:
    # A word of its own: no other test's memories take Lucene's first places.
    word = own_word("quorvantic", namespace)
    crowd = [
        SaveInput(key=f"crowd-{i}", content=f"{word} {word} {word} {word}") for i in range(210)
    ]
    await save_in_batches(memories, namespace, crowd)
    search = settings.search.model_copy(update={"count_limit": 100})
    capped = retrieval_with(settings.model_copy(update={"search": search}))

    def counted(result: Mapping[str, Any]) -> tuple[int, bool, int]:
        return result["total"], result["total_capped"], len(result["results"])

    bm25 = SearchInput(query=word, mode="bm25")
    words = FulltextInput(keywords=[word], limit=5)
    # The count limit (100) is more than the page: that many hits are counted.
    assert counted(await capped.search(namespace, bm25)) == (100, True, 10)
    assert counted(await capped.fulltext(namespace, words)) == (100, True, 5)
    # A deeper page fetches further, past the last hit: the total is exact again.
    deep = FulltextInput(keywords=[word], limit=5, offset=205)
    assert counted(await capped.fulltext(namespace, deep)) == (210, False, 5)
    # The vector channel returns at most 200 matches: a full list is flagged too.
    vector = SearchInput(query=word, mode="vector")
    assert counted(await capped.search(namespace, vector)) == (200, True, 10)


async def test_hybrid_search_counts_a_memory_both_engines_found_once(
    retrieval: Retrieval, memories: MemoryService, namespace: str
) -> None:
    # 200 memories say the word four times and outrank the one that is only the word: BM25's
    # 200 fused hits leave it out, and the vector side (the query itself) finds it.
    word = own_word("vexillotrope", namespace)
    crowd = [
        SaveInput(key=f"crowd-{i}", content=f"{word} {word} {word} {word}") for i in range(200)
    ]
    await save_in_batches(memories, namespace, [*crowd, SaveInput(key="word", content=word)])
    bm25 = await retrieval.search(
        namespace, SearchInput(query=word, mode="bm25", offset=200, limit=1)
    )
    assert (bm25["total"], bm25["total_capped"]) == (201, False)
    assert [r["key"] for r in bm25["results"]] == ["word"]
    hybrid = await retrieval.search(namespace, SearchInput(query=word, mode="hybrid", limit=100))
    assert (hybrid["total"], hybrid["total_capped"]) == (201, True)
    assert [r["matchType"] for r in hybrid["results"] if r["key"] == "word"] == ["vector"]


async def test_the_hybrid_walk_leaves_out_only_memories_that_cannot_rank(
    retrieval: Retrieval,
    memories: MemoryService,
    namespace: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Notes on index tuning share a hub; 60 leaves hang off the hub, two steps from them.
    hub = SaveInput(key="hub", content="Central registry of the team's services")
    notes = [
        SaveInput(
            key=f"note-{i}",
            content=f"Postgres index tuning, attempt {i}: we rebuilt the btree index",
            links=[LinkSpec(key="hub", weight=0.9)],
        )
        for i in range(12)
    ]
    leaves = [
        SaveInput(
            key=f"leaf-{i}",
            content=f"Leaf {i}: watering schedule for the tomato garden",
            links=[LinkSpec(key="hub", weight=0.5)],
        )
        for i in range(60)
    ]
    await save_in_batches(memories, namespace, [hub, *notes, *leaves])
    params = RetrieveInput(query="postgres index tuning", limit=5, sort_by="relevance")
    pruned = await retrieval.retrieve(namespace, params)
    monkeypatch.setattr(retrieval.context, "_pruning", no_pruning)
    whole = await retrieval.retrieve(namespace, params)
    assert len(pruned["results"]) == 5
    assert pruned["results"] == whole["results"]
    assert pruned["total_count"] < whole["total_count"] == 73


def no_pruning(*_: object) -> None:
    return None


async def test_anchors_start_the_graph(
    memories: MemoryService, retrieval: Retrieval, namespace: str
) -> None:
    await build_chain(memories, namespace)
    result = await retrieval.retrieve(
        namespace,
        RetrieveInput(
            query="nothing matches this",
            search_mode="graph",
            anchors=["two"],
            max_hops=1,
            sort_by="relevance",
        ),
    )
    assert sorted(keys(result["results"])) == ["one", "three"]


async def test_filters_apply_to_every_channel(
    memories: MemoryService, retrieval: Retrieval, namespace: str
) -> None:
    await seed(memories, namespace)
    result = await retrieval.retrieve(
        namespace,
        RetrieveInput(query="neo4j qdrant", type="design", filters=RetrieveFilters(min_score=50)),
    )
    assert keys(result["results"]) == ["deploy"]
    future = await retrieval.retrieve(
        namespace,
        RetrieveInput(query="neo4j qdrant", filters=RetrieveFilters(date_from="2999-01-01")),
    )
    assert future["results"] == []
    tagged = await retrieval.retrieve(
        namespace, RetrieveInput(query="neo4j", filters=RetrieveFilters(tags=["ops"]))
    )
    assert keys(tagged["results"]) == ["deploy"]


async def test_invalid_sort_by_is_refused_with_the_exact_message(
    retrieval: Retrieval, namespace: str
) -> None:
    with pytest.raises(InvalidParameter) as caught:
        await retrieval.retrieve(namespace, RetrieveInput(query="x", sort_by="invalid"))
    assert caught.value.message == (
        "Invalid sort_by value: 'invalid'. Must be 'timestamp' or 'relevance'"
    )


async def test_a_failing_vector_channel_degrades_to_the_others_with_a_warning(
    memories: MemoryService, retrieval: Retrieval, namespace: str, tmp_path: Path
) -> None:
    await seed(memories, namespace)
    closed = EdgeVectorStore(tmp_path / "never-opened", 384)
    degraded = Retrieval(
        retrieval.settings, Stores(memories.stores.graph, closed, memories.stores.embedder)
    )
    result = await degraded.retrieve(namespace, RetrieveInput(query="docker compose"))
    assert result["success"] is True
    assert keys(result["results"]) == ["deploy"]
    assert result["warnings"] == [
        "vector channel unavailable: qdrant is unavailable: the embedded shard is not open"
    ]


# -- plans use indexes -----------------------------------------------------------------------


def operators(plan: dict[str, Any]) -> set[str]:
    # A write's unique seeks show as `NodeUniqueIndexSeek(Locking)`: still a seek, with a lock.
    found = {str(plan.get("operatorType", "")).split("@")[0].removesuffix("(Locking)")}
    for child in plan.get("children", []):
        found |= operators(child)
    return found


@pytest.mark.parametrize(
    ("query", "params"),
    [
        ("graph_neighbors", {"frontier": ["x"], "namespace": "n", "limit": 10}),
        ("memory_resolve_refs", {"ids": ["x"], "keys": ["k"], "namespace": "n"}),
        ("memory_hydrate", {"ids": ["x"], "namespace": "n"}),
        ("memory_get", {"ids": ["x"], "keys": ["k"], "namespace": "n", "now": None}),
        (
            "search_kv",
            {
                "namespace": "n",
                "query": "k",
                "tokens": ["k"],
                "limit": 5,
                **MemoryFilters().cypher(),
            },
        ),
        (
            "search_lexical",
            {
                "namespace": "n",
                "query": "k",
                "tokens": ["k"],
                "lucene": '"k"',
                "fetch": 200,
                "limit": 5,
                "keyword": True,
                "keyword_context": True,
                "kv": True,
                "graph_version": False,
                **MemoryFilters().cypher(),
            },
        ),
    ],
)
async def test_retrieval_queries_seek_indexes_and_never_scan(
    graph: GraphStore, query: str, params: dict[str, Any]
) -> None:
    found = operators(await graph.explain(query, **params))
    assert found & {
        "NodeUniqueIndexSeek",
        "NodeIndexSeek",
        "NodeIndexSeekByRange",
        "MultiNodeIndexSeek",
    }, found
    assert not found & {"AllNodesScan", "NodeByLabelScan", "NodeIndexScan"}, found


async def test_hybrid_hydrates_memories_only_the_walk_brought_into_the_results(
    memories: MemoryService,
    settings: Settings,
    retrieval_with: Callable[[Settings], Retrieval],
    namespace: str,
) -> None:
    # The best before the walk (here `island`, by its key) are hydrated while the graph walks;
    # the anchor's neighbours, which no channel finds (no vector hit passes 0.99), join the
    # results after the walk and are hydrated then.
    await build_chain(memories, namespace)
    search = settings.search.model_copy(update={"min_vector_score": 0.99})
    strict = retrieval_with(settings.model_copy(update={"search": search}))
    result = await strict.retrieve(
        namespace,
        RetrieveInput(query="island", anchors=["two"], max_hops=1, limit=3, sort_by="relevance"),
    )
    items = [
        (r["key"], r["content"], r["hop_distance"], len(r["links"])) for r in result["results"]
    ]
    assert items == [
        ("island", "unrelated", None, 0),
        ("one", "chain memory one", 1, 1),
        ("three", "chain memory three", 1, 1),
    ]
    assert {name for r in result["results"][1:] for name in r["scores"]} == {"graph"}


async def test_a_keyword_channel_whose_first_fetch_superseded_memories_thinned_fetches_further(
    retrieval: Retrieval, memories: MemoryService, namespace: str
) -> None:
    # Lucene ranks 80 superseded memories (the word four times) above 30 current ones (once):
    # the first fetch of 66 keeps none, so the channel looks again further.
    word = own_word("palimpsestic", namespace)
    old = [SaveInput(key=f"old-{i:02d}", content=f"{word} {word} {word} {word}") for i in range(80)]
    await save_in_batches(memories, namespace, old)
    newer = [SaveInput(key=f"new-{i:02d}", content="rewritten", supersedes=[f"old-{i:02d}"])
             for i in range(80)]  # fmt: skip
    await save_in_batches(memories, namespace, newer)
    current = [SaveInput(key=f"current-{i:02d}", content=f"{word} note {i}") for i in range(30)]
    await save_in_batches(memories, namespace, current)
    found = await retrieval.retrieve(
        namespace, RetrieveInput(query=word, search_mode="keyword", limit=40)
    )
    assert sorted(keys(found["results"])) == [f"current-{i:02d}" for i in range(30)]
