"""The conversation-quality benchmark runs end to end, on both kinds of conversation: every turn
saved over the HTTP API (the host check included), every question answered in every mode."""

from __future__ import annotations

from pathlib import Path

from bench import assistant_chats
from bench.bench_conversation_quality import (
    FRESH_ROW,
    MODES,
    PLAIN_ROW,
    RRF_ROW,
    measure,
    service_settings,
)
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


async def test_assistant_chats_are_measured_with_a_row_without_the_contextual_channels(
    neo4j_settings: Neo4jSettings, tmp_path: Path
) -> None:
    dataset = assistant_chats.generate(1, 40, SEED)
    settings = service_settings(neo4j_settings, tmp_path / "service")
    results = await measure(settings, dataset, "all", plain=True)
    report = results["splits"]["all"]
    assert [row for row in report if row not in ("questions", "by_type_count")] == [
        *MODES,
        FRESH_ROW,
        RRF_ROW,
        PLAIN_ROW,
    ]
    assert report["questions"] == len(dataset.questions)
