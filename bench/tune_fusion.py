"""Fusion tuning on the tune half of the conversation benchmark: the corpus is stored once, then
each candidate setting of retrieve_context's fusion is scored in-process (never the held-out half).

`python -m bench.tune_fusion [--conversations N] [--turns N]` prints recall@10, multi-hop
recall@10 and MRR per setting of GRID (tune half), then the service's defaults on both halves
(every mode, the textbook RRF, graph variants), and writes bench/results/fusion_tuning.json.
The corpus is stored in-process through the batch path; bench_conversation_quality ingests
over HTTP.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncGenerator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast

from bench.bench_conversation_quality import mean, metrics, rrf
from bench.common import local_neo4j, write_results
from bench.conversations import Dataset, Question, generate
from devtools.seeding import save_in_batches
from service.config import FusionSettings, Settings, load_settings
from service.core.models import SaveInput
from service.core.read.channels import Channels
from service.core.read.retrieval import Retrieval
from service.core.search_inputs import RetrieveInput, RetrieveMode
from service.core.stores import Stores
from service.core.upkeep.context_index import ContextIndex
from service.core.write.batch import BatchSaver
from service.stores.cypher_library import CypherLibrary
from service.stores.embeddings import LocalMiniLM
from service.stores.graph_store import GraphStore
from service.stores.vector_store import EdgeVectorStore

NAMESPACE = "tune"
GRID: dict[str, Sequence[Any]] = {
    "k": (10,),
    "vector": (1.0,),
    "keyword": (0.5, 0.75, 1.0),
    "vector_context": (0.25, 0.5, 1.0),
    "keyword_context": (0.5, 1.0, 1.5),
    "word_coverage": (0.0, 1.0, 2.0),
    "graph": (0.5,),
    "graph_seeds": (5,),
    "vector_fetch": (200,),
    "redundancy": (0.75,),
    "redundancy_neighbours": (5,),
}

MODES = ("vector", "keyword", "kv", "graph", "hybrid")
VARIANTS = {
    "hybrid without word coverage": {"word_coverage": 0.0},
    "hybrid without graph evidence": {"graph": 0.0},
    "hybrid without any graph channel": {
        "graph": 0.0,
        "vector_context": 0.0,
        "keyword_context": 0.0,
    },
    "hybrid reranked (top 20)": {"rerank_top": 20},
}


async def ranked(retrieval: Retrieval, query: str, mode: RetrieveMode, limit: int) -> list[str]:
    params = RetrieveInput(query=query, search_mode=mode, sort_by="relevance", limit=limit)
    return [item["key"] for item in (await retrieval.retrieve(NAMESPACE, params))["results"]]


async def score(
    retrieval: Retrieval, questions: Sequence[Question], mode: str = "hybrid"
) -> dict[str, Any]:
    """recall@5/10/20, hit@10 and MRR overall and per question type (relevance order), and the
    p50 of a question's retrieve in-process (`p50_ms`; the channels' lookups are remembered
    across settings, so it is the fusion's, the walk's and the reranking's part of the cost);
    mode `rrf` is the textbook RRF of the keyword and vector channels (50 hits each)."""
    rows: dict[str, list[dict[str, float]]] = {"all": []}
    took: list[float] = []
    for question in questions:
        started = time.perf_counter()
        if mode == "rrf":
            keyword = await ranked(retrieval, question.text, "keyword", 50)
            vector = await ranked(retrieval, question.text, "vector", 50)
            keys = rrf(keyword, vector)[:20]
        else:
            keys = await ranked(retrieval, question.text, cast(RetrieveMode, mode), 20)
        took.append((time.perf_counter() - started) * 1000)
        found = metrics(keys, question.keys)
        rows["all"].append(found)
        rows.setdefault(question.qtype, []).append(found)
    p50 = round(statistics.median(took), 2) if took else 0.0
    return {**{name: mean(values) for name, values in rows.items()}, "p50_ms": p50}


@asynccontextmanager
async def stored_corpus(
    items: Sequence[SaveInput], neo4j_uri: str, data: Path
) -> AsyncGenerator[tuple[Settings, Stores, Channels]]:
    """The items saved in batches into NAMESPACE with their contextual texts indexed; the channels
    remember their lookups, since only the fusion changes between the settings scored."""
    settings = load_settings(data_dir=data)
    graph = GraphStore(settings.neo4j, neo4j_uri, CypherLibrary())
    await graph.migrate()
    embedder = LocalMiniLM()
    vectors = EdgeVectorStore(data / "edge", embedder.dimensions)
    context_vectors = EdgeVectorStore(data / "edge-context", embedder.dimensions)
    await vectors.open()
    await context_vectors.open()
    try:
        stores = Stores(graph, vectors, embedder, context_vectors)
        await save_in_batches(BatchSaver(settings, stores), NAMESPACE, items)
        index = ContextIndex.configured(settings.search, graph, context_vectors, embedder, vectors)
        await index.refresh_all()
        channels = Channels(settings.search, stores, lookups={})
        yield settings, stores, channels
    finally:
        await context_vectors.close()
        await vectors.close()
        await graph.close()


async def tune(
    dataset: Dataset, neo4j_uri: str, data: Path, grid_search: bool = True
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Store the corpus once, then score every setting of GRID on the tune half."""
    items = [SaveInput.model_validate(turn.body()) for turn in dataset.turns]
    async with stored_corpus(items, neo4j_uri, data) as (settings, stores, channels):
        return await grid_and_halves(settings, stores, channels, dataset.questions, grid_search)


async def grid_and_halves(
    settings: Settings,
    stores: Stores,
    channels: Channels,
    questions: Sequence[Question],
    grid_search: bool,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every setting of GRID on the tune questions, then the defaults' report on both halves."""
    tune_half = [question for question in questions if question.split == "tune"]
    grid = [
        await evaluate(settings, stores, channels, tune_half, fusion)
        for fusion in (settings_grid() if grid_search else [])
    ]
    halves = {
        half: await report(settings, stores, channels, [q for q in questions if q.split == half])
        for half in ("tune", "heldout")
    }
    return grid, halves


async def evaluate(
    settings: Settings,
    stores: Stores,
    channels: Channels,
    questions: Sequence[Question],
    fusion: FusionSettings,
) -> dict[str, Any]:
    retrieval = with_fusion(settings, stores, channels, fusion)
    result = {"fusion": fusion.model_dump(), **await score(retrieval, questions)}
    print(
        f"{fusion.model_dump()} recall@10 {result['all']['recall@10']:.3f} "
        f"multi-hop {result.get('multi-hop', {}).get('recall@10', 0):.3f} "
        f"mrr {result['all']['mrr']:.3f}",
        file=sys.stderr,
    )
    return result


async def report(
    settings: Settings,
    stores: Stores,
    channels: Channels,
    questions: Sequence[Question],
) -> dict[str, Any]:
    """The service's defaults on one half: every mode, the RRF reference, the graph variants."""
    rows: dict[str, Any] = {}
    for mode in (*MODES, "rrf"):
        rows[mode] = await score(with_fusion(settings, stores, channels, None), questions, mode)
    for name, change in VARIANTS.items():
        fusion = settings.search.fusion.model_copy(update=change)
        retrieval = with_fusion(settings, stores, channels, fusion)
        rows[name] = await score(retrieval, questions)
    for name, row in rows.items():
        print(f"{name}: {row['all']}", file=sys.stderr)
    return {"questions": len(questions), "rows": rows}


def with_fusion(
    settings: Settings,
    stores: Stores,
    channels: Channels,
    fusion: FusionSettings | None,
) -> Retrieval:
    """A retrieval on the stored corpus with other fusion settings (None: the defaults)."""
    search = settings.search.model_copy(update={"fusion": fusion or settings.search.fusion})
    tuned = settings.model_copy(update={"search": search})
    return Retrieval(tuned, stores, channels)


def settings_grid() -> list[FusionSettings]:
    names = list(GRID)
    return [
        FusionSettings(**dict(zip(names, values, strict=True)))
        for values in itertools.product(*(GRID[name] for name in names))
    ]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--conversations", type=int, default=10)
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--no-grid", action="store_true", help="only the defaults' report")
    args = parser.parse_args(argv)
    dataset = generate(args.conversations, args.turns)
    with local_neo4j() as (neo4j, _), tempfile.TemporaryDirectory() as folder:
        grid, halves = asyncio.run(tune(dataset, neo4j.uri, Path(folder), not args.no_grid))
    grid.sort(key=lambda r: (-r["all"]["recall@10"], -r["all"]["mrr"]))
    name = "fusion_defaults" if args.no_grid else "fusion_tuning"
    write_results(name, {"grid_on_tune_half": grid, "defaults_by_half": halves})


if __name__ == "__main__":
    main()
