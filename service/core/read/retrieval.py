"""The read side of the memory tools: memory_search (bm25 | vector | hybrid) and
memory_fulltext_search here; retrieve_context delegated to `service.core.read.context`."""

from __future__ import annotations

import asyncio

from service.config import Settings
from service.core.hydration import MemoryReader
from service.core.read.channels import Bm25Page, Channels
from service.core.read.context import ContextRetriever
from service.core.read.fulltext import (
    excerpt,
    free_text_query,
    keywords_query,
    match_spans,
    parse_keywords,
)
from service.core.read.fusion import rrf
from service.core.read.view_cache import links_of
from service.core.results import (
    ContextResult,
    FulltextItem,
    FulltextResult,
    MemoryView,
    SearchItem,
    SearchResult,
)
from service.core.search_inputs import FulltextInput, RetrieveInput, SearchInput
from service.core.stores import Stores
from service.core.switch import require_enabled
from service.stores.graph_store import Row

MAX_CANDIDATES = 200


class Retrieval:
    """The read side: every search goes through here, for MCP and HTTP alike."""

    def __init__(
        self, settings: Settings, stores: Stores, channels: Channels | None = None
    ) -> None:
        """`channels`: the lookups to search with (by default, the stores' own, each looked up
        when asked)."""
        self.settings = settings
        self.reader = MemoryReader(stores.graph)
        self.channels = channels or Channels(settings.search, stores)
        self.context = ContextRetriever(settings, self.channels, self.reader)

    # -- memory_search --------------------------------------------------------------------

    async def search(self, namespace: str, params: SearchInput) -> SearchResult:
        """BM25, vector or both fused by RRF; `total` counts matches before paging."""
        require_enabled(self.settings)
        flt = params.memory_filters()
        query, mode, limit, offset = params.query, params.mode, params.limit, params.offset
        lucene = free_text_query(query)
        versioned = self.channels.reads_graph_version(namespace)
        if mode == "bm25":
            found = await self.channels.bm25(
                namespace, lucene, flt, offset, limit, graph_version=versioned
            )
            ranked = [(i, s, "bm25") for i, s, _ in found.hits]
            total, capped, graph = found.total, found.capped, found.graph
            offset_in_ranked = 0
        else:
            fetch = max(MAX_CANDIDATES, offset + limit)
            vector, bm25 = await asyncio.gather(
                self.channels.vector(namespace, query, flt, fetch),
                self.channels.bm25(
                    namespace, lucene, flt, 0, fetch, beyond=True, graph_version=versioned
                )
                if mode == "hybrid"
                else _no_hits(),
            )
            graph = bm25.graph
            # The vector channel returns at most `fetch` matches: a full list may hold more.
            capped = bm25.capped or len(vector) >= fetch
            if mode == "vector":
                ranked = [(i, s, "vector") for i, s, _ in vector]
                total = len(vector)
            else:
                ranked = rrf(
                    {"bm25": [i for i, _, _ in bm25.hits], "vector": [i for i, _, _ in vector]},
                    self.settings.search.rrf_k,
                )
                # Each memory once: keyword matches past the fused ones that vector found too.
                found_by_vector = {i for i, _, _ in vector}
                total = len(ranked) + len(set(bm25.beyond) - found_by_vector)
            offset_in_ranked = offset
        page = ranked[offset_in_ranked : offset_in_ranked + limit]
        views = await self._views(namespace, [i for i, _, _ in page], params.sortLinks, graph)
        return {
            "success": True,
            "results": [search_item(views[i], s, m) for i, s, m in page if i in views],
            "total": total,
            "total_capped": capped,
            "limit": limit,
            "offset": offset,
        }

    # -- memory_fulltext_search -----------------------------------------------------------

    async def fulltext(self, namespace: str, params: FulltextInput) -> FulltextResult:
        """Keywords as literal terms (AND | OR), with highlighted excerpts."""
        require_enabled(self.settings)
        keywords = parse_keywords(params.keywords)
        limit, offset = params.limit, params.offset
        found = await self.channels.bm25(
            namespace,
            keywords_query(keywords, params.operator),
            params.memory_filters(),
            offset,
            limit,
            graph_version=self.channels.reads_graph_version(namespace),
        )
        ids = [i for i, _, _ in found.hits]
        views = await self._views(namespace, ids, params.sortLinks, found.graph)
        results: list[FulltextItem] = []
        for memory_id, score, _ in found.hits:
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
                    "links": links_of(view),
                }
            )
        return {
            "success": True,
            "results": results,
            "total": found.total,
            "total_capped": found.capped,
            "limit": limit,
            "offset": offset,
        }

    async def retrieve(self, namespace: str, params: RetrieveInput) -> ContextResult:
        """retrieve_context (docs/contract.md §5)."""
        return await self.context.retrieve(namespace, params)

    async def _views(
        self, namespace: str, ids: list[str], sort: bool, version_row: Row | None
    ) -> dict[str, MemoryView]:
        """The views of a page of hits: held ones when the namespace's link graph is at the
        version its keyword statement read (`version_row`), the others read (and held)."""
        graph = None
        if version_row is not None:
            graph = self.channels.link_graph_at(namespace, version_row)
        return await self.context.views_at(namespace, ids, sort, graph)


def search_item(view: MemoryView, score: float, match: str) -> SearchItem:
    """One result of memory_search (docs/contract.md §4); its links are a copy, as the view may
    be held for later reads."""
    return {
        "id": view["id"],
        "key": view["key"],
        "title": view["title"],
        "summary": view["summary"],
        "type": view["type"],
        "score": score,
        "matchType": match,
        "createdAt": view["created_at"],
        "memory_score": view["score"],
        "links": links_of(view),
    }


async def _no_hits() -> Bm25Page:
    return Bm25Page(0, [], False)
