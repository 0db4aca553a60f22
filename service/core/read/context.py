"""retrieve_context (docs/contract.md §5): channels run concurrently, their evidence is fused
into one relevance, the graph walks from the best fused hits, the `limit` best are kept and
then ordered by `sort_by`."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from service.config import Settings
from service.core.hydration import MemoryReader
from service.core.read.channels import Channels, Hit, WalkPruning, guarded, unavailable
from service.core.read.fulltext import free_text_query, searched_word_count
from service.core.read.fusion import (
    Candidate,
    FusionWeights,
    collect,
    fuse,
    graph_evidence,
    graph_score,
    keep_best,
    order_by,
    single_channel,
)
from service.core.read.reranking import rerank
from service.core.read.view_cache import ViewCache, links_of
from service.core.read.walk import Reached
from service.core.results import ContextItem, ContextResult, MemoryView
from service.core.search_inputs import RetrieveInput, parse_sort_by
from service.core.switch import require_enabled
from service.errors import BackendUnavailable
from service.filters import MemoryFilters
from service.stores.graph_store import Row
from service.stores.link_graph import LinkGraph
from service.stores.reranker import CrossEncoder, shared_cross_encoder

log = logging.getLogger(__name__)

CONTEXT_CHANNELS = ("vector_context", "keyword_context")
LEXICAL_CHANNELS = ("keyword", "keyword_context", "kv")


@dataclass(frozen=True)
class ModePlan:
    """What a search mode runs: its channels, how their hits are scored, and the walk."""

    channels: tuple[str, ...]
    fused: bool = False  # one relevance fused over the channels, else the channel's raw score
    walks: bool = False  # the graph walks from the best hits and the anchors
    walk_only: bool = False  # only what the walk reached is returned (their hits seed it)
    distinct_vector: bool = False  # the vector channel prefers hits unlike each other
    prunes: bool = False  # the walk leaves out memories that cannot rank
    reranks: bool = False  # the cross-encoder (when enabled) orders the kept memories


MODES: dict[str, ModePlan] = {
    "hybrid": ModePlan(
        ("vector", "keyword", "kv", *CONTEXT_CHANNELS),
        fused=True,
        walks=True,
        distinct_vector=True,
        prunes=True,
        reranks=True,
    ),
    "vector": ModePlan(("vector",)),
    "keyword": ModePlan(("keyword",)),
    "kv": ModePlan(("kv",)),
    "graph": ModePlan(("keyword", "kv"), fused=True, walks=True, walk_only=True),
}


class ContextRetriever:
    """Recall for an agent's task, for MCP and HTTP alike."""

    def __init__(self, settings: Settings, channels: Channels, reader: MemoryReader) -> None:
        self.settings = settings
        self.channels = channels
        self.reader = reader
        fusion = settings.search.fusion
        self.weights = FusionWeights(
            channels={
                "vector": fusion.vector,
                "keyword": fusion.keyword,
                "kv": fusion.kv,
                "vector_context": fusion.vector_context,
                "keyword_context": fusion.keyword_context,
            },
            graph=fusion.graph,
            k=fusion.k,
            per_word=fusion.word_coverage,
            saturation=settings.search.bm25_saturation,
        )
        self.rerank_top = fusion.rerank_top
        self.views = ViewCache(int(settings.search.view_cache_mb * 2**20))
        self.reranker: CrossEncoder | None = (
            shared_cross_encoder(settings.embedding.threads) if fusion.rerank_top > 0 else None
        )

    async def retrieve(self, namespace: str, params: RetrieveInput) -> ContextResult:
        """Channels, fusion (or one channel's score), graph, keep `limit`, then `sort_by`."""
        require_enabled(self.settings)
        sort_by = parse_sort_by(params.sort_by)
        flt = params.memory_filters()
        mode = params.search_mode
        plan = MODES[mode]
        warnings: list[str] = []
        found, graph = await self._run_channels(namespace, params.query, flt, plan, warnings)
        created = {i: ms for hits in found.values() for i, _, ms in hits}
        candidates = collect({name: [(i, s) for i, s, _ in hits] for name, hits in found.items()})
        words = searched_word_count(params.query)
        self._score(candidates.values(), mode, plan, list(found), words)
        early: Mapping[str, MemoryView] = {}
        if plan.walks:
            # The best before the walk are mostly the best after it: hydrated meanwhile (unless
            # the walk's memories replace the channels' hits).
            best = keep_best(list(candidates.values()), created, params.limit)
            ids = [] if plan.walk_only else [c.id for c in best]
            hydrating = asyncio.create_task(self.views_at(namespace, ids, params.sortLinks, graph))
            try:
                candidates = await self._with_graph(
                    namespace,
                    params,
                    plan,
                    flt,
                    candidates,
                    created,
                    [*found, "graph"],
                    words,
                    warnings,
                    graph,
                )
            except BaseException:
                hydrating.cancel()
                raise
            early = await hydrating
        admitted = list(candidates.values())
        ranked = keep_best(admitted, created, len(admitted))
        reranker = self.reranker if plan.reranks else None
        wanted = max(params.limit, self.rerank_top) if reranker else params.limit
        kept, views, dropped = await self._kept(namespace, ranked, wanted, params, early, graph)
        if reranker is not None:
            try:
                await rerank(reranker, params.query, kept, views)
            except BackendUnavailable as error:
                log.warning("rerank failed: %s", error.message)
                warnings.append(f"rerank unavailable: {error.message}; fused order kept")
            kept = keep_best(kept, created, params.limit)
        results = [context_item(c, views[c.id]) for c in order_by(kept, sort_by, created)]
        return {
            "success": True,
            "results": results,
            "total_count": len(admitted) - dropped,
            "search_mode_used": mode,
            "sort_by": sort_by,
            "message": f"Found {len(results)} contexts",
            "warnings": warnings,
        }

    async def _kept(
        self,
        namespace: str,
        ranked: Sequence[Candidate],
        wanted: int,
        params: RetrieveInput,
        early: Mapping[str, MemoryView],
        graph: LinkGraph | None,
    ) -> tuple[list[Candidate], Mapping[str, MemoryView], int]:
        """The `wanted` best that still exist and, unless `include_superseded`, are current
        (a vector written before a delete or a supersession can outlive it for a moment): the
        next best take the place of any found gone when hydrated. Also their views and how many
        were dropped."""
        kept: list[Candidate] = []
        views: Mapping[str, MemoryView] = early
        dropped = start = 0
        while len(kept) < wanted and start < len(ranked):
            batch = ranked[start : start + wanted - len(kept)]
            start += len(batch)
            ids = [c.id for c in batch]
            views = await self._views(namespace, ids, params.sortLinks, views, graph)
            for candidate in batch:
                view = views.get(candidate.id)
                if view is None or not (params.include_superseded or view["superseded_by"] is None):
                    dropped += 1
                else:
                    kept.append(candidate)
        return kept, views, dropped

    async def _views(
        self,
        namespace: str,
        ids: list[str],
        sort: bool,
        early: Mapping[str, MemoryView],
        graph: LinkGraph | None,
    ) -> Mapping[str, MemoryView]:
        """The kept memories' views: those hydrated while the graph walked (in hybrid, the best
        before the walk: all of the kept ones in 3 retrieves of 4 on the 10k benchmark store),
        then the rest in one more round trip."""
        missing = [memory_id for memory_id in ids if memory_id not in early]
        if not missing:
            return early
        return {**early, **await self.views_at(namespace, missing, sort, graph)}

    async def views_at(
        self, namespace: str, ids: list[str], sort: bool, graph: LinkGraph | None
    ) -> dict[str, MemoryView]:
        """The views of `ids`. With `graph` (the namespace's link graph, current at the version
        the caller read before), those held and still valid at it, the others read and then
        held (memory_search and memory_fulltext_search hold theirs here too)."""
        held = self.views.get(namespace, graph, ids, sort)
        missing = [memory_id for memory_id in ids if memory_id not in held]
        if not missing:
            return held
        read = await self.reader.hydrate(namespace, missing, sort)
        self.views.put(namespace, graph, read, sort)
        return {**held, **read}

    async def _run_channels(
        self, namespace: str, query: str, flt: MemoryFilters, plan: ModePlan, warnings: list[str]
    ) -> tuple[dict[str, list[Hit]], LinkGraph | None]:
        """The mode's channels concurrently (the lexical ones in one Neo4j round trip), a failing
        backend skipped with a warning; meanwhile, when the mode walks, the namespace's link
        graph in process if it is up to date."""
        walks = plan.walks
        fusion = self.settings.search.fusion
        lucene = free_text_query(query, drop_question_words=True)
        context = self.channels.stores.context_vectors
        wanted = [
            name
            for name in plan.channels
            if self.weights.of(name) > 0 and (context is not None or name not in CONTEXT_CHANNELS)
        ]
        lookups: dict[str, Callable[[], Awaitable[list[Hit]]]] = {
            "vector": lambda: self.channels.vector(namespace, query, flt, fusion.fetch),
            "vector_context": lambda: self.channels.vector(
                namespace, query, flt, fusion.fetch, context
            ),
        }
        if plan.distinct_vector:
            lookups["vector"] = lambda: self.channels.distinct_vector(namespace, query, flt, fusion)
        lexical = [name for name in wanted if name in LEXICAL_CHANNELS]
        # The walk's graph version comes with the lexical channels' round trip, or on its own.
        version = walks and bool(lexical) and self.channels.reads_graph_version(namespace)
        async with asyncio.TaskGroup() as group:
            alone = walks and not version
            graph = group.create_task(self.channels.link_graph(namespace)) if alone else None
            tasks = {
                name: group.create_task(guarded(name, lookups[name], warnings))
                for name in wanted
                if name in lookups
            }
            words = group.create_task(
                self._lexical(namespace, query, lucene, flt, lexical, warnings, version)
            )
        found = {name: hits for name, task in tasks.items() if (hits := task.result()) is not None}
        lexical_hits, version_row = words.result()
        found.update(lexical_hits)
        chosen = {name: found[name] for name in wanted if name in found}
        if version_row is not None:
            return chosen, self.channels.link_graph_at(namespace, version_row)
        return chosen, graph and graph.result()

    async def _lexical(
        self,
        namespace: str,
        query: str,
        lucene: str | None,
        flt: MemoryFilters,
        wanted: list[str],
        warnings: list[str],
        graph_version: bool,
    ) -> tuple[dict[str, list[Hit]], Row | None]:
        """The wanted lexical channels (and the graph version row, when asked); when Neo4j is
        down each gets a warning and none ran."""
        if not wanted:
            return {}, None
        fetch = self.settings.search.fusion.fetch
        try:
            return await self.channels.lexical(
                namespace, query, lucene, flt, fetch, wanted, graph_version
            )
        except BackendUnavailable as error:
            for name in wanted:
                unavailable(name, error, warnings)
            return {}, None

    def _score(
        self, candidates: Iterable[Candidate], mode: str, plan: ModePlan, ran: list[str], words: int
    ) -> None:
        """Fused relevance (hybrid, and graph's seeds), or the one channel's raw score."""
        if plan.fused:
            fuse(candidates, self.weights, ran, words)
        else:
            single_channel(candidates, mode)

    async def _with_graph(
        self,
        namespace: str,
        params: RetrieveInput,
        plan: ModePlan,
        flt: MemoryFilters,
        candidates: dict[str, Candidate],
        created: dict[str, int | None],
        ran: list[str],
        words: int,
        warnings: list[str],
        graph: LinkGraph | None,
    ) -> dict[str, Candidate]:
        """Walk from the best fused hits and the anchors (over `graph`, the namespace's link
        graph in process, when given); add graph evidence and re-fuse (hybrid, over the channels
        that ran and the query's searched words) or keep only what the walk reached (graph
        mode)."""
        seeds = await self._seeds(namespace, params.anchors, candidates)
        prune = self._pruning(params, candidates, ran) if plan.prunes else None
        walk = await guarded(
            "graph",
            lambda: self.channels.walk(namespace, seeds, params.max_hops, prune, graph),
            warnings,
        )
        found = candidates
        if plan.walk_only:  # the walk's memories, with what the seeding found
            candidates = {}
        for memory_id, reached in (walk or {}).items():
            if flt.admits(reached.brief):
                candidate = candidates.get(memory_id)
                if candidate is None:  # graph mode, or reached by the walk alone
                    scores = dict(found[memory_id].scores) if memory_id in found else {}
                    candidate = candidates[memory_id] = Candidate(memory_id, scores)
                add_graph(candidate, reached)
                created[memory_id] = reached.brief["created_ms"]
        if plan.walk_only:
            single_channel(candidates.values(), "graph")
        else:
            walked = ran if walk is not None else [name for name in ran if name != "graph"]
            fuse(candidates.values(), self.weights, walked, words)
        return candidates

    def _pruning(
        self, params: RetrieveInput, candidates: Mapping[str, Candidate], ran: list[str]
    ) -> WalkPruning | None:
        """What the walk may leave out in hybrid. The candidates' scores so far are fused over
        the channels alone (Σ w); graph evidence only adds to them, so after the walk the
        `limit`-th score is at least the `limit`-th of now × Σ w / (Σ w + w_graph). A memory
        only the graph reaches scores w_graph · value · hop factor / (Σ w + w_graph): below
        that, it never ranks. Only two steps deep: a deeper walk goes on from every
        second-step memory."""
        graph_weight = self.weights.graph
        if params.max_hops > 2 or graph_weight <= 0 or len(candidates) < params.limit:
            return None
        scores = sorted((c.score for c in candidates.values()), reverse=True)
        channels = sum(self.weights.of(channel) for channel in ran if channel != "graph")
        hop_factor = graph_evidence(1.0, 2)
        needed = scores[params.limit - 1] * channels / (graph_weight * hop_factor)
        return WalkPruning(keep=list(candidates), min_value=needed * (1 - 1e-9))

    async def _seeds(
        self, namespace: str, anchors: Sequence[str] | None, candidates: Mapping[str, Candidate]
    ) -> dict[str, float]:
        """The seeds, strongest first, with their relevance: the anchors (1.0), then the
        `fusion.graph_seeds` best hits, exact key matches before the others."""
        best = sorted(
            candidates.values(), key=lambda c: (c.scores.get("kv") != 1.0, -c.score, c.id)
        )
        seeds = {c.id: c.score for c in best[: self.settings.search.fusion.graph_seeds]}
        if not anchors:
            return seeds
        resolved = await self.reader.resolve(namespace, ids=anchors, keys=anchors)
        first = dict.fromkeys(resolved.values(), 1.0)
        return {**first, **{i: s for i, s in seeds.items() if i not in first}}


def add_graph(candidate: Candidate, reached: Reached) -> None:
    """The graph channel's raw score, hop distance, path and seed-weighted evidence."""
    candidate.scores["graph"] = graph_score(reached.hops)
    candidate.hop_distance, candidate.path = reached.hops, reached.path
    candidate.graph_evidence = graph_evidence(reached.path_value, reached.hops)


def context_item(candidate: Candidate, view: MemoryView) -> ContextItem:
    """One result of retrieve_context (docs/contract.md §5); its lists and links are copies,
    as the view may be held for later retrieves."""
    return {
        "id": candidate.id,
        "key": view["key"],
        "title": view["title"],
        "summary": view["summary"],
        "content": view["content"],
        "type": view["type"],
        "tags": list(view["tags"]),
        "score": candidate.score,
        "source": candidate.source,
        "scores": dict(candidate.scores),
        "hop_distance": candidate.hop_distance,
        "path": candidate.path,
        "created_at": view["created_at"],
        "memory_score": view["score"],
        "links": links_of(view),
    }
