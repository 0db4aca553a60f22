"""The opt-in cross-encoder pass of retrieve_context: the kept memories scored again by the
relevance of their text to the query."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from service.core.models import embedding_text
from service.core.read.fusion import Candidate
from service.core.results import MemoryView
from service.stores.reranker import CrossEncoder


async def rerank(
    reranker: CrossEncoder,
    query: str,
    kept: Sequence[Candidate],
    views: Mapping[str, MemoryView],
) -> None:
    """Score the kept memories again by the cross-encoder's relevance of their text to the
    query: it becomes their `score` (the fused relevance stays in `scores` as `fused`)."""
    texts = [embedding_text(views[c.id]["title"], views[c.id]["content"]) for c in kept]
    for candidate, relevance in zip(kept, await reranker.relevance(query, texts), strict=True):
        candidate.scores["fused"] = candidate.score
        candidate.scores["rerank"] = relevance
        candidate.score = relevance
