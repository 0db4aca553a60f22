"""The retrieval channels, each one lookup: BM25 (Lucene), vector (Qdrant), key-value, and the
weighted breadth-first walk over LINK edges. Filters are applied inside every channel."""

from __future__ import annotations

import logging
import re
from collections.abc import (
    Awaitable,
    Callable,
    Collection,
    Hashable,
    Mapping,
    MutableMapping,
    Sequence,
)
from dataclasses import dataclass
from typing import Any, TypeVar

from service.config import FusionSettings, SearchSettings
from service.core.read.fusion import keyword_score
from service.core.read.query_cache import QueryVectorCache
from service.core.read.redundancy import distinct_order
from service.core.read.walk import Reached, Walk
from service.core.stores import Stores
from service.errors import BackendUnavailable
from service.filters import MemoryFilters
from service.stores.graph_store import Row
from service.stores.link_graph import LinkGraph
from service.stores.vector_store import VectorFilter, VectorHit, VectorStore

MAX_LUCENE_FETCH = 100_000
QUERY_CACHE_SIZE = 256
_TOKEN = re.compile(r"[^\s,;]+")
# The fulltext channels of retrieve_context and their statements when looked up alone.
LEXICAL_INDEXES = {"keyword": "search_fulltext", "keyword_context": "search_context_fulltext"}

log = logging.getLogger(__name__)
T = TypeVar("T")
Hit = tuple[str, float, int | None]  # memory id, channel score, created_at (epoch ms)


@dataclass(frozen=True)
class Bm25Page:
    """A page of BM25 hits; `total` counts the hits that passed among those Lucene returned,
    and `capped` says Lucene held more than it returned (the total is then a lower bound);
    `beyond` holds the ids of the counted hits after the page, when asked for."""

    total: int
    hits: list[Hit]
    capped: bool
    beyond: tuple[str, ...] = ()
    graph: Row | None = None  # the namespace's graph_version row, when asked for


@dataclass(frozen=True)
class WalkPruning:
    """Second-step memories the walk may leave out: those not in `keep` whose best path value
    (seed relevance × link weights) is below `min_value`."""

    keep: Collection[str]
    min_value: float


class Channels:
    """Channel lookups of one namespace at a time, shared by search and retrieve_context."""

    def __init__(
        self,
        search: SearchSettings,
        stores: Stores,
        lookups: MutableMapping[Hashable, Any] | None = None,
        query_vectors: QueryVectorCache | None = None,
    ) -> None:
        """`lookups`, when given, keeps every lookup's answer by its arguments, across calls:
        for replaying the same questions over stores that do not change (bench/tune_fusion.py
        scores many fusion settings on one stored corpus). `query_vectors`: the query
        embeddings to start from (bench/retrieve_cpu.py embeds its queries beforehand)."""
        self.search = search
        self.stores = stores
        self._query_vectors = query_vectors or QueryVectorCache(stores.embedder, QUERY_CACHE_SIZE)
        self._lookups = lookups

    async def _remembered(self, key: Hashable, look_up: Callable[[], Awaitable[T]]) -> T:
        if self._lookups is None:
            return await look_up()
        if key not in self._lookups:
            self._lookups[key] = await look_up()
        return self._lookups[key]

    async def _read(self, name: str, /, **params: Any) -> list[Row]:
        """The rows of the read statement `name`."""
        key = (name, repr(sorted(params.items())))
        return await self._remembered(key, lambda: self.stores.graph.read(name, **params))

    async def bm25(
        self,
        namespace: str,
        lucene: str | None,
        flt: MemoryFilters,
        skip: int,
        limit: int,
        count: bool = True,
        index_query: str = "search_fulltext",
        beyond: bool = False,
        first_fetch: int | None = None,
        graph_version: bool = False,
    ) -> Bm25Page:
        """BM25 hits `skip..skip+limit` of the namespace and how many Lucene hits passed (with
        `beyond`, also the ids of those after the page; with `graph_version`, the namespace's
        graph version row, read in the same statement: `link_graph_at`).

        Lucene returns its top hits first; other namespaces or filters may thin them out, so
        the fetch (from `first_fetch` when given) grows until enough hits pass or Lucene has no
        more. With `count` the first fetch is at least `search.count_limit`, so the total is
        exact up to that many hits.
        """
        if lucene is None:
            return Bm25Page(0, [], False)
        fetch = first_fetch or lucene_fetch(skip + limit, flt)
        if count:
            fetch = max(fetch, self.search.count_limit)
        while True:
            rows = await self._read(
                index_query,
                lucene=lucene,
                namespace=namespace,
                fetch=fetch,
                skip=skip,
                limit=limit,
                beyond=beyond,
                graph_version=graph_version,
                **flt.cypher(),
            )
            row = rows[0]
            exhausted = row["fetched"] < fetch
            if exhausted or row["matched"] >= skip + limit or fetch >= MAX_LUCENE_FETCH:
                break
            fetch = min(fetch * 8, MAX_LUCENE_FETCH)
        hits, graph = _bm25_hits(row), row.get("graph")
        return Bm25Page(row["matched"], hits, not exhausted, tuple(row["beyond"]), graph)

    async def keyword(
        self,
        namespace: str,
        lucene: str | None,
        flt: MemoryFilters,
        fetch: int,
        index_query: str = "search_fulltext",
        first_fetch: int | None = None,
    ) -> list[Hit]:
        """BM25 mapped into [0, 1) by s / (s + k) (over the memories' own text, or over their
        graph-contextual text with `search_context_fulltext`); Lucene's fetch starts at
        `first_fetch` when given."""
        page = await self.bm25(
            namespace, lucene, flt, 0, fetch, False, index_query, first_fetch=first_fetch
        )
        k = self.search.bm25_saturation
        return ties_newest_first([(i, keyword_score(s, k), ms) for i, s, ms in page.hits])

    async def vector(
        self,
        namespace: str,
        query: str,
        flt: MemoryFilters,
        limit: int,
        store: VectorStore | None = None,
    ) -> list[Hit]:
        """Cosine of the query embedding above `search.min_vector_score` (negatives clamp to 0),
        in the memories' vectors or another store (the context vectors)."""
        hits = await self._vector_hits(namespace, query, flt, limit, store or self.stores.vectors)
        return cosine_hits(hits)

    async def distinct_vector(
        self, namespace: str, query: str, flt: MemoryFilters, fusion: FusionSettings
    ) -> list[Hit]:
        """The vector channel of hybrid: `fusion.vector_fetch` hits by cosine, ordered by
        distinctness (service/core/read/redundancy.py), the `fusion.fetch` first; scores stay the
        cosines."""
        if fusion.redundancy <= 0:
            return await self.vector(namespace, query, flt, fusion.fetch)
        fetch = max(fusion.fetch, fusion.vector_fetch)
        hits = await self._vector_hits(namespace, query, flt, fetch, self.stores.vectors, True)
        hits = distinct_order(hits, fusion.redundancy, fusion.redundancy_neighbours)
        return cosine_hits(hits[: fusion.fetch])

    async def _vector_hits(
        self,
        namespace: str,
        query: str,
        flt: MemoryFilters,
        limit: int,
        store: VectorStore,
        with_vectors: bool = False,
    ) -> list[VectorHit]:
        threshold = self.search.min_vector_score

        async def look_up() -> list[VectorHit]:
            vector = await self._query_vectors.get(query)
            return await store.search(
                vector, VectorFilter(namespace, flt), limit, threshold, with_vectors
            )

        key = ("vector", id(store), namespace, query, repr(flt), limit, threshold, with_vectors)
        return await self._remembered(key, look_up)

    async def kv(self, namespace: str, query: str, flt: MemoryFilters, fetch: int) -> list[Hit]:
        """Keys equal to the query (1.0) or starting with it (0.9); query tokens equal to a key."""
        rows = await self._read(
            "search_kv",
            namespace=namespace,
            query=query.strip(),
            tokens=kv_tokens(query),
            limit=fetch,
            **flt.cypher(),
        )
        return _kv_hits(rows)

    async def lexical(
        self, namespace: str, query: str, lucene: str | None, flt: MemoryFilters, fetch: int,
        wanted: Collection[str], graph_version: bool = False,
    ) -> tuple[dict[str, list[Hit]], Row | None]:  # fmt: skip
        """The `wanted` ones of keyword, keyword_context and kv in one round trip, with the
        namespace's graph version row when asked (`link_graph_at`). A fulltext channel whose
        hits the filters thinned below `fetch` is looked up again on its own, with a growing
        Lucene fetch."""
        fulltext = lucene is not None
        rows = await self._read(
            "search_lexical",
            graph_version=graph_version,
            lucene=lucene or "",
            query=query.strip(),
            tokens=kv_tokens(query),
            namespace=namespace,
            fetch=lucene_fetch(fetch, flt),
            limit=fetch,
            keyword=fulltext and "keyword" in wanted,
            keyword_context=fulltext and "keyword_context" in wanted,
            kv="kv" in wanted,
            **flt.cypher(),
        )
        row = rows[0]
        found: dict[str, list[Hit]] = {}
        k = self.search.bm25_saturation
        for name, index_query in LEXICAL_INDEXES.items():
            if name not in wanted:
                continue
            part: Row = row[name]
            first = lucene_fetch(fetch, flt)
            if part["fetched"] == first and part["matched"] < fetch:  # thinned: fetch more
                further = min(8 * first, MAX_LUCENE_FETCH)
                found[name] = await self.keyword(
                    namespace, lucene, flt, fetch, index_query, further
                )
            else:
                hits = [(i, keyword_score(s, k), ms) for i, s, ms in _bm25_hits(part)]
                found[name] = ties_newest_first(hits)
        if "kv" in wanted:
            found["kv"] = _kv_hits(row["kv"])
        return found, row["graph"]

    async def walk(
        self,
        namespace: str,
        seeds: Mapping[str, float],
        max_hops: int,
        prune: WalkPruning | None = None,
        graph: LinkGraph | None = None,
    ) -> dict[str, Reached]:
        """Breadth-first over LINK (both directions) from the seeds (id → relevance, strongest
        first), bounded by `search.graph_max_nodes`: every memory at 1..max_hops with its
        shortest path, and every seed a stronger seed reaches, less the second-step memories
        `prune` leaves out. In process over `graph`, the namespace's link graph (`link_graph`),
        when given; else in Neo4j, the first two steps in one round trip, deeper ones one more
        each."""
        if not seeds:
            return {}
        budget = self.search.graph_max_nodes
        params: dict[str, Any] = {
            "seeds": list(seeds),
            "relevance": dict(seeds),
            "two_hops": max_hops >= 2,
            "limit": budget + len(seeds) * 8,
            "limit_two": 2 * budget,
            "keep": list({*prune.keep, *seeds}) if prune else [],
            "min_value": prune.min_value if prune else None,
        }
        if graph is not None:
            row = graph.walk(**params)
        else:
            row = (await self._read("graph_walk", namespace=namespace, **params))[0]
        walk = Walk(seeds, dict(row["seeds"]), budget, max_hops)
        frontier = walk.step(row["first"], 1)
        if max_hops >= 2:
            wanted = set(frontier)
            frontier = walk.step([step for step in row["second"] if step[0] in wanted], 2)
        for hop in range(3, max_hops + 1):
            if not frontier or len(walk.reached) >= budget:
                break
            limit = budget - len(walk.reached) + len(frontier) * 8
            if graph is not None:
                row = graph.neighbours_of(frontier, limit)
            else:
                found = await self._read(
                    "graph_neighbors", frontier=frontier, namespace=namespace, limit=limit
                )
                row = found[0]
            frontier = walk.step(row["neighbours"], hop)
        return walk.results()

    async def link_graph(self, namespace: str) -> LinkGraph | None:
        """The namespace's up-to-date link graph in process, if the store holds one (never
        when lookups are remembered: a replay reads the rows it remembered); None also when
        Neo4j is down, which the walk then reports."""
        if not self.reads_graph_version(namespace):
            return None
        try:
            return await self.stores.graph.link_graph(namespace)
        except BackendUnavailable:
            return None

    def reads_graph_version(self, namespace: str) -> bool:
        """Whether a walk may run over the namespace's link graph in process, so that its
        version is worth reading (with the lexical channels: `lexical`)."""
        return self._lookups is None and self.stores.graph.link_graphs.wanted(namespace)

    def link_graph_at(self, namespace: str, version_row: Row) -> LinkGraph | None:
        """The namespace's link graph in process if it is at the version `version_row` read."""
        return self.stores.graph.link_graphs.at(namespace, version_row)


def lucene_fetch(wanted: int, flt: MemoryFilters) -> int:
    """Lucene hits fetched first for `wanted` kept ones. The namespace's index holds its
    memories alone, so only the memory filters thin them: narrowing ones (type, tags, time,
    score) by any share, so four times as many, at least 200; otherwise only superseded memories
    drop out, so a quarter more, at least 16 more (66 for hybrid's 50 rather than 200: less
    of Neo4j's CPU per retrieve, docs/performance.md)."""
    if flt.narrows:
        return max(4 * wanted, 200)
    return wanted + max(16, wanted // 4)


def kv_tokens(query: str) -> list[str]:
    """The query's distinct tokens (at most 64), each compared with the keys."""
    return list(dict.fromkeys(_TOKEN.findall(query)))[:64]


def ties_newest_first(hits: Sequence[Hit]) -> list[Hit]:
    """Hits best first, equal scores newest first, then by id: Lucene orders equal scores by its
    internal document order, which changes whenever a memory's text or context is rewritten."""
    return sorted(hits, key=lambda hit: (-hit[1], -(hit[2] or 0), hit[0]))


def _bm25_hits(row: Mapping[str, Any]) -> list[Hit]:
    return [(hit["id"], float(hit["score"]), hit["created_ms"]) for hit in row["hits"]]


def _kv_hits(rows: Sequence[Mapping[str, Any]]) -> list[Hit]:
    """One hit per memory (its best score), best first, then id."""
    best: dict[str, Hit] = {}
    for row in rows:
        if row["id"] not in best or row["score"] > best[row["id"]][1]:
            best[row["id"]] = (row["id"], float(row["score"]), row["created_ms"])
    return sorted(best.values(), key=lambda hit: (-hit[1], hit[0]))


def cosine_hits(hits: Sequence[VectorHit]) -> list[Hit]:
    """Vector hits as channel hits: cosines below 0 count as 0."""
    return [(hit.id, max(0.0, hit.score), hit.created_at_ms) for hit in hits]


async def guarded(name: str, run: Callable[[], Awaitable[T]], warnings: list[str]) -> T | None:
    """A channel's result, or None and a warning when its backend is down (the others go on)."""
    try:
        return await run()
    except BackendUnavailable as error:
        unavailable(name, error, warnings)
        return None


def unavailable(name: str, error: BackendUnavailable, warnings: list[str]) -> None:
    """Log a channel's failure and tell the caller in `warnings`."""
    log.warning("channel %s failed: %s", name, error.message)
    warnings.append(f"{name} channel unavailable: {error.message}")
