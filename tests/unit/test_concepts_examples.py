"""The worked examples of docs/concepts.md are what the code computes: link sorting with its
tie-breaks, channel scores, the fused relevance and its graph evidence."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from service.config import FusionSettings, SearchSettings
from service.core.read.fusion import (
    Candidate,
    FusionWeights,
    fuse,
    graph_evidence,
    graph_score,
    keyword_score,
)
from service.core.sorting import combined_score, sort_links

CONCEPTS = (Path(__file__).resolve().parents[2] / "docs" / "concepts.md").read_text()
RAN = ("vector", "keyword", "kv", "vector_context", "keyword_context", "graph")


def example_links() -> list[dict[str, Any]]:
    """The rows of the link table, in creation order."""
    rows = re.findall(
        r"^\| \d \| `([a-z-]+)` \| ([0-9.]+) \| (\d+|null) \| ([0-9.]+) \|$",
        CONCEPTS,
        flags=re.MULTILINE,
    )
    return [
        {
            "key": key,
            "type": "related",
            "weight": float(weight),
            "score": None if score == "null" else float(score),
            "shown": float(shown),
        }
        for key, weight, score, shown in rows
    ]


def stated_order(label: str) -> list[str]:
    line = CONCEPTS.split(label, 1)[1].split(".", 1)[0]
    return re.findall(r"`([a-z-]+)`", line)


def test_link_example_sorts_as_the_guide_says() -> None:
    links = example_links()
    assert len(links) == 5
    for link in links:
        assert combined_score(link["weight"], link["score"]) == link["shown"]
    assert [link["key"] for link in sort_links(links, True)] == stated_order("Sorted:")
    assert [link["key"] for link in sort_links(links, False)] == stated_order("`sortLinks=false`:")


def test_channel_score_examples_match_the_mappings() -> None:
    assert keyword_score(3.0, SearchSettings().bm25_saturation) == 0.6
    assert [round(graph_score(hops), 3) for hops in (1, 2, 3)] == [0.667, 0.4, 0.286]
    assert "BM25 3.0 → 0.6" in CONCEPTS
    assert "1 hop 0.667, 2 hops 0.400, 3 hops 0.286" in CONCEPTS


def test_fused_example_scores_are_what_fusion_computes() -> None:
    defaults = FusionSettings()
    weights = FusionWeights(
        {
            "vector": defaults.vector,
            "keyword": defaults.keyword,
            "kv": defaults.kv,
            "vector_context": defaults.vector_context,
            "keyword_context": defaults.keyword_context,
        },
        defaults.graph,
        defaults.k,
        defaults.word_coverage,
        SearchSettings().bm25_saturation,
    )
    keyword = keyword_score(4.5, SearchSettings().bm25_saturation)
    a = Candidate(
        "A", scores={"vector": 0.6, "keyword": keyword}, ranks={"vector": 1, "keyword": 3}
    )
    b = Candidate("B", ranks={"vector": 2})
    fuse([a, b], weights, RAN, words=3)
    c = Candidate("C", graph_evidence=graph_evidence(a.score * 0.8, 1))
    d = Candidate("D", graph_evidence=graph_evidence(a.score * 0.8 * 0.5, 2))
    fuse([c, d], weights, RAN, words=3)
    scores = [round(x.score, 4) for x in (a, b, c, d)]
    assert scores == [0.2811, 0.1746, 0.0214, 0.0064]
    assert sum(weights.of(channel) for channel in RAN) == 5.25
    for shown in ("**0.2811**", "**0.1746**", "**0.0214**", "**0.0064**", "(all of them: 5.25)"):
        assert shown in CONCEPTS
    assert (round(c.graph_evidence, 4), round(d.graph_evidence, 4)) == (0.2249, 0.0675)
