"""Retrieval quality on the generated corpus: recall@5, recall@10 and MRR per search mode.

Relevant per query: the core memory (found by meaning or words) and its linked context
(reachable only over the graph). Hybrid should beat every single channel.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from bench.common import local_neo4j, open_services, write_results
from bench.corpus import QualityCase, quality_corpus
from devtools.seeding import save_in_batches
from service.core.read.retrieval import Retrieval
from service.core.search_inputs import RetrieveInput, RetrieveMode
from service.core.stores import Stores
from service.core.write.batch import BatchSaver

MODES: tuple[RetrieveMode, ...] = ("vector", "keyword", "kv", "graph", "hybrid")


async def evaluate(
    retrieval: Retrieval, namespace: str, cases: list[QualityCase], mode: RetrieveMode
) -> dict[str, float]:
    """Mean recall@5, recall@10 and MRR (first relevant) over the cases for one mode."""
    recall5 = recall10 = reciprocal = 0.0
    for case in cases:
        params = RetrieveInput(query=case.query, search_mode=mode, sort_by="relevance", limit=10)
        result = await retrieval.retrieve(namespace, params)
        ranked = [item["key"] for item in result["results"]]
        relevant = set(case.relevant)
        recall5 += len(relevant & set(ranked[:5])) / len(relevant)
        recall10 += len(relevant & set(ranked[:10])) / len(relevant)
        first = next((i for i, key in enumerate(ranked, 1) if key in relevant), None)
        reciprocal += 1 / first if first else 0.0
    n = len(cases)
    return {
        "recall@5": round(recall5 / n, 3),
        "recall@10": round(recall10 / n, 3),
        "mrr": round(reciprocal / n, 3),
    }


async def run(neo4j_uri: str, data: Path) -> dict[str, Any]:
    async with open_services(neo4j_uri, data) as (memories, retrieval):
        items, cases = quality_corpus()
        saver = BatchSaver(
            memories.settings,
            Stores(memories.stores.graph, memories.stores.vectors, memories.stores.embedder),
        )
        await save_in_batches(saver, "quality", items)
        return {mode: await evaluate(retrieval, "quality", cases, mode) for mode in MODES}


def main() -> None:
    with local_neo4j() as (neo4j, _), tempfile.TemporaryDirectory() as folder:
        results = asyncio.run(run(neo4j.uri, Path(folder)))
    write_results("quality", results)


if __name__ == "__main__":
    main()
