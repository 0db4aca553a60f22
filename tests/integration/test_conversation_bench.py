"""The conversation-quality benchmark runs end to end: every turn saved over the HTTP API (the
host check included), every question answered in every mode."""

from __future__ import annotations

from pathlib import Path

from bench.bench_conversation_quality import measure, service_settings
from bench.conversations import SEED, generate
from service.config import Neo4jSettings


async def test_the_benchmark_ingests_every_turn_and_ranks_every_question_in_every_mode(
    neo4j_settings: Neo4jSettings, tmp_path: Path
) -> None:
    dataset = generate(1, 40, SEED)
    results = await measure(service_settings(neo4j_settings, tmp_path / "service"), dataset, "all")
    assert results["ingest"]["turns"] == len(dataset.turns)
    assert sorted(results["latency_ms"]) == [
        "graph",
        "hybrid",
        "hybrid fresh",
        "keyword",
        "kv",
        "vector",
    ]
    assert [q["qid"] for q in results["per_question"]] == [q.qid for q in dataset.questions]
    assert results["splits"]["all"]["questions"] == len(dataset.questions)
