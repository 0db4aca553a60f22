"""Ranking arithmetic: reciprocal rank fusion, channel score mappings, the fused relevance of
retrieve_context (docs/search.md#fused-relevance) and its `sort_by` orders. Pure functions
with total orders."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, cast

# Ties of `source` go to the more specific evidence: an exact key, then words, then meaning.
CHANNELS = ("kv", "keyword", "vector", "keyword_context", "vector_context", "graph")
CHANNEL_PLACE = {channel: place for place, channel in enumerate(CHANNELS)}
BM25_CHANNELS = ("keyword", "keyword_context")
HOP_FACTOR_ONE = 1.0 / 1.5  # graph_score(1): graph evidence is relative to one hop


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


def bm25_of(score: float, saturation: float) -> float:
    """The BM25 score behind a keyword score (the inverse of keyword_score)."""
    return saturation * score / max(1.0 - score, 1e-12) if score > 0 else 0.0


def word_coverage(bm25: float, words: int, per_word: float) -> float:
    """How fully a keyword hit matches the query: min(1, bm25 / (per_word × words)); 1.0 with
    per_word 0 (rank alone counts)."""
    if per_word <= 0:
        return 1.0
    return min(1.0, bm25 / (per_word * max(1, words)))


def graph_score(hops: int) -> float:
    """1 / (hop_distance + 0.5): 1 hop 0.667, 2 hops 0.400, 3 hops 0.286."""
    return 1.0 / (hops + 0.5)


# The plain `dict`, typed: calling the alias `dict[str, float]` costs 1 µs more, in every
# candidate of every retrieve.
_scores = cast(Callable[[], dict[str, float]], dict)
_ranks = cast(Callable[[], dict[str, int]], dict)


@dataclass
class Candidate:
    """One memory found by one or more channels: raw scores, ranks, graph evidence."""

    id: str
    scores: dict[str, float] = field(default_factory=_scores)
    ranks: dict[str, int] = field(default_factory=_ranks)
    hop_distance: int | None = None
    path: list[str] | None = None
    graph_evidence: float = 0.0
    score: float = 0.0
    source: str = ""
    channels: ChannelEvidence | None = field(default=None, repr=False, compare=False)


class ChannelEvidence(NamedTuple):
    """A candidate's channel contributions summed, and the strongest channel and its share, for
    the weights and query word count `fuse` read them with: ranks do not change, so fusing
    again (after the walk) adds graph evidence only."""

    weights: FusionWeights
    words: int
    summed: float
    source: str
    best: float


@dataclass(frozen=True)
class FusionWeights:
    """Channel weights, the rank constant of the fused relevance, and the BM25 per query word at
    which a keyword channel's evidence counts in full (0: its rank alone; `saturation` is the k
    of the keyword scores, to read their BM25 back)."""

    channels: Mapping[str, float]
    graph: float
    k: int
    per_word: float = 0.0
    saturation: float = 2.0

    def of(self, channel: str) -> float:
        return self.graph if channel == "graph" else self.channels.get(channel, 0.0)


def collect(ranked: Mapping[str, Sequence[tuple[str, float]]]) -> dict[str, Candidate]:
    """One candidate per memory with each channel's raw score and 1-based rank (lists come
    best first)."""
    merged: dict[str, Candidate] = {}
    for channel, hits in ranked.items():
        for rank, (memory_id, score) in enumerate(hits, start=1):
            candidate = merged.get(memory_id)
            if candidate is None:
                candidate = merged[memory_id] = Candidate(memory_id)
            if channel not in candidate.ranks:
                candidate.scores[channel] = score
                candidate.ranks[channel] = rank
    return merged


def channel_evidence(candidate: Candidate, weights: FusionWeights, words: int) -> ChannelEvidence:
    """The candidate's search channels' weighted evidence, by rank, summed, and the strongest
    channel (earlier in CHANNELS on ties) and its share. A channel's share is its weight ×
    (k + 1) / (k + rank), 1.0 × weight at rank 1; a keyword channel's is scaled by its word
    coverage of a query of `words` words. One pass, no intermediate map: fusion runs over every
    candidate of every retrieve."""
    k = weights.k
    summed, source, best, place = 0.0, "", -math.inf, len(CHANNELS)
    for channel, rank in candidate.ranks.items():
        share = weights.of(channel) * ((k + 1) / (k + rank))
        if channel in BM25_CHANNELS:
            bm25 = bm25_of(candidate.scores[channel], weights.saturation)
            share *= word_coverage(bm25, words, weights.per_word)
        summed += share
        rank_place = CHANNEL_PLACE.get(channel)
        if rank_place is not None and (share > best or (share == best and rank_place < place)):
            source, best, place = channel, share, rank_place
    return ChannelEvidence(weights, words, summed, source, best)


def fuse(
    candidates: Iterable[Candidate], weights: FusionWeights, ran: Sequence[str], words: int = 1
) -> None:
    """Set `score` to the fused relevance in [0, 1] and `source` to the strongest channel.

    score = Σ w_c · (k+1)/(k+rank_c) · m_c + w_graph · graph_evidence, over Σ w of the channels
    that ran (graph included), where m_c is 1 for vector, kv and the contextual vector and the
    word coverage min(1, bm25_c / (per_word × words)) for the keyword channels: 1.0 means first
    in every channel, fully covering the query's `words` words, and a one-hop neighbour of a
    perfect seed over a link of weight 1.
    """
    total = sum(weights.of(channel) for channel in ran) or 1.0
    for candidate in candidates:
        evidence = candidate.channels
        if evidence is None or evidence.weights is not weights or evidence.words != words:
            evidence = candidate.channels = channel_evidence(candidate, weights, words)
        summed, source = evidence.summed, evidence.source
        if candidate.graph_evidence > 0:
            graph = weights.graph * candidate.graph_evidence
            summed += graph
            source = "graph" if graph > evidence.best else source  # graph is last in CHANNELS
        candidate.score = min(1.0, summed / total)
        candidate.source = source


def single_channel(candidates: Iterable[Candidate], channel: str) -> None:
    """In a single-channel mode, `score` is that channel's raw score."""
    for candidate in candidates:
        candidate.score = candidate.scores.get(channel, 0.0)
        candidate.source = channel


def graph_evidence(path_value: float, hops: int) -> float:
    """Seed relevance × the link weights along the path × the hop factor 1/(hop+0.5) relative
    to one hop, in [0, 1]."""
    return path_value * graph_score(hops) / HOP_FACTOR_ONE


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
