"""Search and retrieval: memory_search (bm25 | vector | hybrid), memory_fulltext_search and
retrieve_context (vector, keyword, kv and graph channels, merged, then ordered by sort_by)."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from service.config import Settings
from service.core.errors import BackendUnavailable
from service.core.fulltext import (
    excerpt,
    free_text_query,
    keywords_query,
    match_spans,
    parse_keywords,
)
from service.core.fusion import (
    Candidate,
    graph_score,
    keep_best,
    keyword_score,
    merge,
    order_by,
    rrf,
)
from service.core.memories import MemoryService
from service.core.search_inputs import (
    FulltextInput,
    MemoryFilters,
    RetrieveInput,
    SearchInput,
    epoch_ms_or_none,
    parse_sort_by,
)
from service.core.sorting import parse_sort_links
from service.stores.embeddings import Embedder
from service.stores.graph_store import GraphStore
from service.stores.vector_store import VectorFilter, VectorStore

log = logging.getLogger(__name__)

MAX_CANDIDATES = 200
MAX_LUCENE_FETCH = 100_000
T = TypeVar("T")
GRAPH_SEEDS = 5
_TOKEN = re.compile(r"[^\s,;]+")


Hit = tuple[str, float, int | None]  # memory id, channel score, created_at (epoch ms)
# memory id → (hop distance, path of keys, the fields filters and ranking need)
Reached = dict[str, tuple[int, list[str], dict[str, Any]]]


class Retrieval:
    """The read side: every search goes through here, for MCP and HTTP alike."""

    def __init__(
        self,
        settings: Settings,
        graph: GraphStore,
        vectors: VectorStore,
        embedder: Embedder,
        memories: MemoryService,
    ) -> None:
        self.settings = settings
        self.graph = graph
        self.vectors = vectors
        self.embedder = embedder
        self.memories = memories

    # -- memory_search --------------------------------------------------------------------

    async def search(self, namespace: str, params: SearchInput) -> dict[str, Any]:
        """BM25, vector or both fused by RRF; `total` counts matches before paging."""
        self.memories.require_enabled()
        sort = parse_sort_links(params.sortLinks)
        flt = params.memory_filters()
        query, mode, limit, offset = params.query, params.mode, params.limit, params.offset
        lucene = free_text_query(query)
        if mode == "bm25":
            total, hits = await self._bm25(namespace, lucene, flt, offset, limit)
            ranked = [(i, s, "bm25") for i, s, _ in hits]
            offset_in_ranked = 0
        else:
            fetch = max(MAX_CANDIDATES, offset + limit)
            vector, (bm25_total, bm25) = await asyncio.gather(
                self._vector(namespace, query, flt, fetch),
                self._bm25(namespace, lucene, flt, 0, fetch, count=True)
                if mode == "hybrid"
                else _no_hits(),
            )
            if mode == "vector":
                ranked = [(i, s, "vector") for i, s, _ in vector]
                total = len(vector)
            else:
                ranked = rrf(
                    {"bm25": [i for i, _, _ in bm25], "vector": [i for i, _, _ in vector]},
                    self.settings.search.rrf_k,
                )
                total = len(ranked) + max(0, bm25_total - len(bm25))
            offset_in_ranked = offset
        page = ranked[offset_in_ranked : offset_in_ranked + limit]
        views = await self.memories.hydrate(namespace, [i for i, _, _ in page], sort)
        results = [
            {
                "id": memory_id,
                "key": views[memory_id]["key"],
                "title": views[memory_id]["title"],
                "summary": views[memory_id]["summary"],
                "type": views[memory_id]["type"],
                "score": score,
                "matchType": match,
                "createdAt": views[memory_id]["created_at"],
                "memory_score": views[memory_id]["score"],
                "links": views[memory_id]["links"],
            }
            for memory_id, score, match in page
            if memory_id in views
        ]
        return {
            "success": True,
            "results": results,
            "total": total,
            "limit": limit,
            "offset": offset,
        }

    async def _bm25(
        self,
        namespace: str,
        lucene: str | None,
        flt: MemoryFilters,
        skip: int,
        limit: int,
        count: bool = True,
    ) -> tuple[int, list[Hit]]:
        """BM25 hits `skip..skip+limit` of the namespace and their total (when `count`).

        Lucene returns its top hits first; other namespaces or filters may thin them out, so
        the fetch grows until enough hits pass or Lucene has no more.
        """
        if lucene is None:
            return 0, []
        fetch = max(4 * (skip + limit), 200)
        while True:
            rows = await self.graph.read(
                "search_fulltext",
                lucene=lucene,
                namespace=namespace,
                fetch=fetch,
                skip=skip,
                limit=limit,
                **flt.cypher(),
            )
            row = rows[0]
            exhausted = row["fetched"] < fetch
            if exhausted or row["matched"] >= skip + limit or fetch >= MAX_LUCENE_FETCH:
                break
            fetch *= 8
        hits = [(hit["id"], float(hit["score"]), hit["created_ms"]) for hit in row["hits"]]
        if exhausted or not count:
            return row["matched"], hits
        totals = await self.graph.read(
            "search_fulltext_count", lucene=lucene, namespace=namespace, **flt.cypher()
        )
        return int(totals[0]["total"]), hits

    async def _vector(
        self, namespace: str, query: str, flt: MemoryFilters, limit: int
    ) -> list[Hit]:
        vector = (await self.embedder.embed([query]))[0]
        hits = await self.vectors.search(
            vector, vector_filter(flt, namespace), limit, self.settings.search.min_vector_score
        )
        return [(hit.id, max(0.0, hit.score), hit.created_at_ms) for hit in hits]

    # -- memory_fulltext_search -----------------------------------------------------------

    async def fulltext(self, namespace: str, params: FulltextInput) -> dict[str, Any]:
        """Keywords as literal terms (AND | OR), with highlighted excerpts."""
        self.memories.require_enabled()
        sort = parse_sort_links(params.sortLinks)
        keywords = parse_keywords(params.keywords)
        limit, offset = params.limit, params.offset
        total, hits = await self._bm25(
            namespace,
            keywords_query(keywords, params.operator),
            params.memory_filters(),
            offset,
            limit,
        )
        views = await self.memories.hydrate(namespace, [i for i, _, _ in hits], sort)
        results: list[dict[str, Any]] = []
        for memory_id, score, _ in hits:
            view = views.get(memory_id)
            if view is None:
                continue
            text = view["content"]
            if not match_spans(text, keywords) and match_spans(view["summary"], keywords):
                text = view["summary"]
            results.append(
                {
                    "id": memory_id,
                    "key": view["key"],
                    "title": view["title"],
                    "summary": view["summary"],
                    "excerpt": excerpt(text, keywords),
                    "score": score,
                    "memory_score": view["score"],
                    "links": view["links"],
                }
            )
        return {
            "success": True,
            "results": results,
            "total": total,
            "limit": limit,
            "offset": offset,
        }

    # -- retrieve_context -----------------------------------------------------------------

    async def retrieve(self, namespace: str, params: RetrieveInput) -> dict[str, Any]:
        """Channels concurrently, graph from their best hits, merge, keep `limit`, sort_by."""
        self.memories.require_enabled()
        sort_by = parse_sort_by(params.sort_by)
        sort = parse_sort_links(params.sortLinks)
        flt = params.memory_filters()
        mode = params.search_mode
        # A memory in the overall top `limit` is in the top `limit` of its best channel.
        fetch = max(2 * params.limit, 20)
        wanted = {
            "hybrid": ("vector", "keyword", "kv"),
            "vector": ("vector",),
            "keyword": ("keyword",),
            "kv": ("kv",),
            "graph": ("keyword", "kv"),
        }[mode]
        runners: dict[str, Callable[[], Awaitable[list[Hit]]]] = {
            "vector": lambda: self._vector(namespace, params.query, flt, fetch),
            "keyword": lambda: self._keyword_channel(namespace, params.query, flt, fetch),
            "kv": lambda: self._kv_channel(namespace, params.query, flt, fetch),
        }
        warnings: list[str] = []
        async with asyncio.TaskGroup() as group:
            tasks = {
                name: group.create_task(_guarded(name, runners[name], warnings)) for name in wanted
            }
        found = {name: task.result() or [] for name, task in tasks.items()}
        created = {i: ms for hits in found.values() for i, _, ms in hits}
        candidates = merge({name: {i: s for i, s, _ in hits} for name, hits in found.items()})
        if mode in ("hybrid", "graph"):
            anchors = (
                await self.memories.resolve(namespace, ids=params.anchors, keys=params.anchors)
                if params.anchors
                else {}
            )
            seeds = [c.id for c in sorted(candidates.values(), key=lambda c: (-c.score, c.id))]
            seeds = list(dict.fromkeys([*seeds[:GRAPH_SEEDS], *anchors.values()]))
            reached = await _guarded(
                "graph", lambda: self._graph(namespace, seeds, params.max_hops), warnings
            )
            if mode == "graph":
                candidates = {}
            for memory_id, (hops, path, brief) in (reached or {}).items():
                if not flt.admits(brief):
                    continue
                candidate = candidates.setdefault(memory_id, Candidate(memory_id))
                candidate.scores["graph"] = graph_score(hops)
                candidate.hop_distance, candidate.path = hops, path
                created[memory_id] = brief["created_ms"]
        admitted = list(candidates.values())
        kept = order_by(keep_best(admitted, created, params.limit), sort_by, created)
        views = await self.memories.hydrate(namespace, [c.id for c in kept], sort)
        results = [_context_item(c, views[c.id]) for c in kept if c.id in views]
        return {
            "success": True,
            "results": results,
            "total_count": len(admitted),
            "search_mode_used": mode,
            "sort_by": sort_by,
            "message": f"Found {len(results)} contexts",
            "warnings": warnings,
        }

    async def _keyword_channel(
        self, namespace: str, query: str, flt: MemoryFilters, fetch: int
    ) -> list[Hit]:
        _, hits = await self._bm25(namespace, free_text_query(query), flt, 0, fetch, count=False)
        k = self.settings.search.bm25_saturation
        return [(i, keyword_score(score, k), ms) for i, score, ms in hits]

    async def _kv_channel(
        self, namespace: str, query: str, flt: MemoryFilters, fetch: int
    ) -> list[Hit]:
        tokens = list(dict.fromkeys(_TOKEN.findall(query)))[:64]
        rows = await self.graph.read(
            "search_kv",
            namespace=namespace,
            query=query.strip(),
            tokens=tokens,
            limit=fetch,
            **flt.cypher(),
        )
        best: dict[str, Hit] = {}
        for row in rows:
            if row["id"] not in best or row["score"] > best[row["id"]][1]:
                best[row["id"]] = (row["id"], float(row["score"]), row["created_ms"])
        return list(best.values())

    async def _graph(self, namespace: str, seeds: Sequence[str], max_hops: int) -> Reached:
        """Breadth-first over LINK (both directions) from the seeds, bounded by
        `search.graph_max_nodes`: every memory at 1..max_hops with its shortest path."""
        budget = self.settings.search.graph_max_nodes
        paths: dict[str, tuple[int, list[str]]] = {}
        briefs: dict[str, dict[str, Any]] = {}
        if seeds:
            rows = await self.graph.read("memory_keys", ids=list(seeds), namespace=namespace)
            paths = {row["id"]: (0, [row["key"]]) for row in rows}
        frontier = list(paths)
        for hop in range(1, max_hops + 1):
            if not frontier or len(paths) >= budget:
                break
            rows = await self.graph.read(
                "graph_neighbors",
                frontier=frontier,
                namespace=namespace,
                limit=budget - len(paths) + len(frontier) * 8,
            )
            next_frontier: list[str] = []
            for from_id, memory_id, key, memory_type, tags, score, created_ms in rows[0][
                "neighbours"
            ]:
                if memory_id in paths or len(paths) >= budget:
                    continue
                paths[memory_id] = (hop, [*paths[from_id][1], key])
                briefs[memory_id] = {
                    "type": memory_type,
                    "tags": tags,
                    "score": score,
                    "created_ms": created_ms,
                }
                next_frontier.append(memory_id)
            frontier = next_frontier
        return {i: (hop, path, briefs[i]) for i, (hop, path) in paths.items() if hop >= 1}


async def _guarded(name: str, run: Callable[[], Awaitable[T]], warnings: list[str]) -> T | None:
    """A channel's result, or None and a warning when its backend is down (the others go on)."""
    try:
        return await run()
    except BackendUnavailable as error:
        log.warning("channel %s failed: %s", name, error.message)
        warnings.append(f"{name} channel unavailable: {error.message}")
        return None


async def _no_hits() -> tuple[int, list[Hit]]:
    return 0, []


def _context_item(candidate: Candidate, view: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": candidate.id,
        "key": view["key"],
        "title": view["title"],
        "summary": view["summary"],
        "content": view["content"],
        "type": view["type"],
        "tags": view["tags"],
        "score": candidate.score,
        "source": candidate.source,
        "scores": dict(candidate.scores),
        "hop_distance": candidate.hop_distance,
        "path": candidate.path,
        "created_at": view["created_at"],
        "memory_score": view["score"],
        "links": view["links"],
    }


def vector_filter(flt: MemoryFilters, namespace: str) -> VectorFilter:
    """The memory filters as the vector engine's filter, scoped to the namespace."""
    return VectorFilter(
        namespace=namespace,
        types=flt.types,
        tags=flt.tags,
        created_from_ms=epoch_ms_or_none(flt.created_from),
        created_to_ms=epoch_ms_or_none(flt.created_to),
        min_score=flt.min_score,
    )
