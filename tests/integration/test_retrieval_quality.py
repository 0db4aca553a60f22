"""Retrieval quality on the generated corpus: hybrid recall beats every single channel.

MRR is reported by bench/bench_quality.py, not asserted: with the contract's flat graph score
(1-hop 0.667), context linked from weaker seeds can outrank a direct hit (docs/search.md).
"""

from __future__ import annotations

from bench.bench_quality import MODES, evaluate
from bench.corpus import quality_corpus
from service.core.memories import MemoryService
from service.core.read.retrieval import Retrieval
from service.core.upkeep.context_index import ContextIndex
from tests.conftest import save_in_batches


async def test_hybrid_recall_beats_every_single_channel(
    memories: MemoryService, retrieval: Retrieval, context_index: ContextIndex, namespace: str
) -> None:
    items, cases = quality_corpus(distractors=60)
    await save_in_batches(memories, namespace, items)
    await context_index.refresh_all()
    scores = {mode: await evaluate(retrieval, namespace, cases, mode) for mode in MODES}
    hybrid = scores.pop("hybrid")
    for mode, single in scores.items():
        assert hybrid["recall@5"] > single["recall@5"], (mode, hybrid, single)
        assert hybrid["recall@10"] > single["recall@10"], (mode, hybrid, single)
    assert hybrid["recall@10"] >= 0.8
