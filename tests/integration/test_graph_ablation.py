"""The graph ablation scores every question of a generated seed under each ablation."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from bench.conversations import generate
from bench.graph_ablation import ABLATIONS, ablate
from service.config import Neo4jSettings


async def test_every_ablation_scores_every_question_of_the_seed(
    neo4j_settings: Neo4jSettings, tmp_path: Path
) -> None:
    dataset = generate(1, 40, 7)
    result = await ablate(7, 1, 40, neo4j_settings.uri, tmp_path)
    counts = Counter(question.qtype for question in dataset.questions)
    assert result["questions"] == counts
    assert sum(result["questions"].values()) == len(dataset.questions)
    assert list(result["rows"]) == list(ABLATIONS)
    for row in result["rows"].values():
        assert set(row) >= {"all", "p50_ms", *counts}
        assert 0.0 <= row["all"]["recall@10"] <= 1.0
