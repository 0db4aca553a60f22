"""Ranking arithmetic: reciprocal rank fusion, channel score mappings, the merge of
retrieve_context channels and its `sort_by` orders. Pure functions with total orders."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

CHANNELS = ("vector", "keyword", "kv", "graph")


def rrf(rankings: Mapping[str, Sequence[str]], k: int = 60) -> list[tuple[str, float, str]]:
    """Reciprocal rank fusion: (id, Σ 1/(k + rank), matchType) by score desc, then id.

    matchType is the one ranking's name, or `both` when the id is in more than one.
    """
    scores: dict[str, float] = {}
    sources: dict[str, list[str]] = {}
    for name, ids in rankings.items():
        for rank, item in enumerate(ids, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
            sources.setdefault(item, []).append(name)
    fused = [
        (item, score, sources[item][0] if len(sources[item]) == 1 else "both")
        for item, score in scores.items()
    ]
    fused.sort(key=lambda entry: (-entry[1], entry[0]))
    return fused


def keyword_score(bm25: float, saturation: float) -> float:
    """BM25 mapped into [0, 1) by s / (s + k)."""
    return bm25 / (bm25 + saturation) if bm25 > 0 else 0.0


def graph_score(hops: int) -> float:
    """1 / (hop_distance + 0.5): 1 hop 0.667, 2 hops 0.400, 3 hops 0.286."""
    return 1.0 / (hops + 0.5)


@dataclass
class Candidate:
    """One memory found by one or more channels."""

    id: str
    scores: dict[str, float] = field(default_factory=dict[str, float])
    hop_distance: int | None = None
    path: list[str] | None = None

    @property
    def score(self) -> float:
        return max(self.scores.values())

    @property
    def source(self) -> str:
        """The channel with the highest score (earlier channel in CHANNELS on ties)."""
        best = self.score
        return next(name for name in CHANNELS if self.scores.get(name) == best)


def merge(channel_scores: Mapping[str, Mapping[str, float]]) -> dict[str, Candidate]:
    """One candidate per memory with every channel's score."""
    merged: dict[str, Candidate] = {}
    for channel, scores in channel_scores.items():
        for memory_id, score in scores.items():
            candidate = merged.setdefault(memory_id, Candidate(memory_id))
            candidate.scores[channel] = max(score, candidate.scores.get(channel, 0.0))
    return merged


def keep_best(
    candidates: Sequence[Candidate], created_ms: Mapping[str, int | None], limit: int
) -> list[Candidate]:
    """The `limit` best by score; ties: newer first, then id."""
    ordered = sorted(candidates, key=lambda c: (-c.score, -(created_ms.get(c.id) or 0), c.id))
    return ordered[:limit]


def order_by(
    kept: Sequence[Candidate], sort_by: str, created_ms: Mapping[str, int | None]
) -> list[Candidate]:
    """`timestamp`: newest first, missing last; `relevance`: score desc. Ties by id."""
    if sort_by == "timestamp":
        return sorted(
            kept,
            key=lambda c: (created_ms.get(c.id) is None, -(created_ms.get(c.id) or 0), c.id),
        )
    return sorted(kept, key=lambda c: (-c.score, -(created_ms.get(c.id) or 0), c.id))
