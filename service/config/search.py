"""Settings of search and retrieve_context: channels, fusion and the context texts."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class FusionSettings(BaseModel):
    """retrieve_context's fused relevance (docs/search.md#fused-relevance)."""

    k: int = Field(default=10, ge=1, le=1000, description="Rank constant of each channel's share.")
    vector: float = Field(default=1.0, ge=0.0, description="Weight of the vector channel.")
    keyword: float = Field(default=0.75, ge=0.0, description="Weight of the keyword channel.")
    kv: float = Field(default=1.0, ge=0.0, description="Weight of the kv channel.")
    vector_context: float = Field(default=0.5, ge=0.0, description="Weight of vector_context.")
    keyword_context: float = Field(default=1.5, ge=0.0, description="Weight of keyword_context.")
    word_coverage: float = Field(
        default=2.0,
        ge=0.0,
        le=100.0,
        description="BM25 per searched query word at which a keyword channel's hit counts in "
        "full; below it, in proportion (0: its rank alone counts).",
    )
    graph: float = Field(default=0.5, ge=0.0, description="Weight of graph evidence.")
    fetch: int = Field(default=50, ge=1, le=1000, description="Hits fetched per channel.")
    graph_seeds: int = Field(
        default=5, ge=0, le=100, description="Best hits the graph walk starts from."
    )
    vector_fetch: int = Field(
        default=200,
        ge=1,
        le=1000,
        description="Vector hits ranked by distinctness, of which the `fetch` best are fused.",
    )
    redundancy: float = Field(
        default=0.75,
        ge=0.0,
        le=10.0,
        description="Share of a vector hit's mean cosine to its most similar fellow hits taken "
        "off its cosine when ranking it (0: rank by cosine).",
    )
    redundancy_neighbours: int = Field(
        default=5, ge=1, le=100, description="Fellow hits the redundancy of a vector hit counts."
    )
    rerank_top: int = Field(
        default=0,
        ge=0,
        le=100,
        description="Hybrid only, 0 (default): off. N: the best max(N, limit) by fused relevance "
        "are scored again by a cross-encoder reading the query and each memory's text together, "
        "and ranked by that (0.1 to 0.25 s more for 20 on 2 cores).",
    )


class SearchSettings(BaseModel):
    enabled: bool = Field(
        default=True, description="memory_search and memory_fulltext_search, tools and endpoints."
    )
    min_vector_score: float = Field(
        default=0.2, ge=-1.0, le=1.0, description="Vector matches below this cosine are dropped."
    )
    bm25_saturation: float = Field(
        default=2.0, gt=0, description="k of the keyword channel's `s / (s + k)`."
    )
    rrf_k: int = Field(default=60, ge=1, description="k of memory_search's reciprocal rank fusion.")
    count_limit: int = Field(
        default=1000,
        ge=1,
        le=100_000,
        description="Fulltext hits memory_search and memory_fulltext_search count for `total`; "
        "beyond them `total` is a lower bound and `total_capped` is true.",
    )
    graph_max_nodes: int = Field(
        default=500, ge=1, le=100_000, description="Bound of one graph traversal."
    )
    view_cache_mb: float = Field(
        default=32.0,
        ge=0.0,
        le=4096.0,
        description="Memories retrieve_context holds in process between retrieves, valid while "
        "their namespace's link graph is unchanged (MiB, estimated); 0: every retrieve reads "
        "them from Neo4j.",
    )
    context_neighbours: int = Field(
        default=2, ge=0, le=20, description="Strongest neighbours in a memory's context text."
    )
    context_hops: int = Field(
        default=2,
        ge=1,
        le=2,
        description="Links a memory's context text reaches: 1, its strongest neighbours; 2, "
        "also theirs, through neighbours of at most 4 links (docs/search.md).",
    )
    context_vector: Literal["text", "mean"] = Field(
        default="text",
        description="Context vector: the text's embedding where the model reads it whole, else "
        "the mean of its parts' stored vectors (text); always that mean (mean: docs/search.md).",
    )
    fusion: FusionSettings = Field(default_factory=FusionSettings)
