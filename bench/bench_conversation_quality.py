"""Retrieval quality on long multi-session conversations, measured through the HTTP API.
Owns ingestion (one turn per POST, linked to the previous turn), the per-mode runs and the report.

Run: `python -m bench.bench_conversation_quality [--style dialogue|assistant]
[--conversations N] [--turns N] [--split tune|heldout|all] [--without-contexts] [--ingest-only]
[--model-file PATH]`.
`dialogue` (the default) is two people's short turns (`bench.conversations`); `assistant` a user's
short asks and an assistant's long answers (`bench.assistant_chats`). Tune on `tune`; `heldout`
is the half nobody tunes on. `--without-contexts` adds the row of hybrid with the contextual
channels' weights at 0 (in-process, on the same stores). `--ingest-only` measures the saves and
the context drain alone (bench/results/conversation_ingest_hops<H>.json, H the
`search.context_hops` of the run). `--model-file` embeds with another ONNX export of the model
(`python -m bench.embedder_variants --keep DIR` writes its int8 variant), named by the file's stem,
which the results file's name ends with.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI

from bench import assistant_chats, conversations
from bench.common import (
    RESULTS,
    context_backlog,
    local_neo4j,
    result_header,
    summary,
    wait_context,
)
from bench.conversation_facts import QTYPES
from bench.conversations import SEED, Dataset, Question, Turn, iter_split
from service.auth import DEFAULT_NAMESPACE
from service.config import EmbeddingSettings, Neo4jSettings, Settings, load_settings
from service.core.read.retrieval import Retrieval
from service.core.search_inputs import RetrieveInput

MODES: tuple[str, ...] = ("vector", "keyword", "kv", "graph", "hybrid")
RRF_ROW = "rrf(bm25,vector)"
FRESH_ROW = "hybrid fresh"  # asked right after the last save, before the backlog drained
PLAIN_ROW = "hybrid no contexts"  # vector_context and keyword_context weighted 0
RRF_K = 60
KS = (5, 10, 20)
LIMIT = 20
RRF_FETCH = 50
PROGRESS_EVERY = 250
STYLES = {
    "dialogue": (conversations.generate, {"conversations": 10, "turns": 300}),
    "assistant": (assistant_chats.generate, assistant_chats.DEFAULTS),
}

Ranks = dict[str, list[str]]


def _create_app(settings: Settings) -> FastAPI:
    """The service's ASGI app: the one place that knows where its factory lives."""
    from service.api.http.app import create_app

    return create_app(settings)


def metrics(ranked: Sequence[str], relevant: Iterable[str]) -> dict[str, float]:
    """recall@5/10/20 (share of answering turns in the top k), hit@10 and reciprocal rank."""
    wanted = set(relevant)
    scores = {f"recall@{k}": len(wanted & set(ranked[:k])) / len(wanted) for k in KS}
    scores["hit@10"] = 1.0 if wanted & set(ranked[:10]) else 0.0
    first = next((i for i, key in enumerate(ranked[:LIMIT], 1) if key in wanted), None)
    scores["mrr"] = 1 / first if first else 0.0
    return scores


def rrf(*rankings: Sequence[str], k: int = RRF_K) -> list[str]:
    """Textbook reciprocal rank fusion: sum of 1/(k + rank), ranks from 1; ties by key."""
    fused: dict[str, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, 1):
            fused[key] = fused.get(key, 0.0) + 1 / (k + rank)
    return sorted(fused, key=lambda key: (-fused[key], key))


async def ingest(client: httpx.AsyncClient, turns: Sequence[Turn]) -> float:
    """POST every turn as an agent would, in order; returns the seconds it took."""
    started = time.perf_counter()
    for done, turn in enumerate(turns, 1):
        response = await client.post("/v1/memories", json=turn.body())
        if response.status_code not in (200, 201):
            raise RuntimeError(f"saving {turn.key} failed: {response.text}")
        if done % PROGRESS_EVERY == 0 or done == len(turns):
            rate = done / (time.perf_counter() - started)
            print(f"ingested {done}/{len(turns)} turns ({rate:.1f}/s)", file=sys.stderr)
    return time.perf_counter() - started


async def retrieve(
    client: httpx.AsyncClient, query: str, mode: str, limit: int
) -> tuple[list[str], float]:
    """Ranked keys of one retrieve_context call and its latency in ms."""
    body = {"query": query, "search_mode": mode, "sort_by": "relevance", "limit": limit}
    started = time.perf_counter()
    response = await client.post("/v1/retrieve", json=body)
    elapsed = (time.perf_counter() - started) * 1000
    if response.status_code != 200:
        raise RuntimeError(f"retrieve ({mode}) failed: {response.text}")
    return [item["key"] for item in response.json()["results"]], elapsed


async def rank_plain(retrieval: Retrieval, questions: Sequence[Question]) -> dict[str, list[str]]:
    """Hybrid in-process with `retrieval`'s settings (those of PLAIN_ROW)."""
    ranks: dict[str, list[str]] = {}
    for question in questions:
        params = RetrieveInput(
            query=question.text, search_mode="hybrid", sort_by="relevance", limit=LIMIT
        )
        found = await retrieval.retrieve(DEFAULT_NAMESPACE, params)
        ranks[question.qid] = [item["key"] for item in found["results"]]
    return ranks


def without_contexts(settings: Settings) -> Settings:
    """The settings with the contextual channels' fusion weights at 0."""
    fusion = settings.search.fusion.model_copy(
        update={"vector_context": 0.0, "keyword_context": 0.0}
    )
    search = settings.search.model_copy(update={"fusion": fusion})
    return settings.model_copy(update={"search": search})


async def rank_all(
    client: httpx.AsyncClient, questions: Sequence[Question]
) -> tuple[dict[str, Ranks], dict[str, list[float]]]:
    """Per question, the ranked keys of every mode and of the RRF row; latencies per mode."""
    ranks: dict[str, Ranks] = {}
    latency: dict[str, list[float]] = {mode: [] for mode in MODES}
    for done, question in enumerate(questions, 1):
        row: Ranks = {}
        for mode in MODES:
            row[mode], elapsed = await retrieve(client, question.text, mode, LIMIT)
            latency[mode].append(elapsed)
        keyword, _ = await retrieve(client, question.text, "keyword", RRF_FETCH)
        vector, _ = await retrieve(client, question.text, "vector", RRF_FETCH)
        row[RRF_ROW] = rrf(keyword, vector)[:LIMIT]
        ranks[question.qid] = row
        if done % 100 == 0:
            print(f"asked {done}/{len(questions)} questions", file=sys.stderr)
    return ranks, latency


async def rank_fresh(
    client: httpx.AsyncClient, questions: Sequence[Question]
) -> tuple[dict[str, list[str]], list[float]]:
    """Hybrid only, asked at once after the ingestion (what an agent asking right after its
    last save sees); its latencies."""
    ranks: dict[str, list[str]] = {}
    latency: list[float] = []
    for question in questions:
        ranks[question.qid], elapsed = await retrieve(client, question.text, "hybrid", LIMIT)
        latency.append(elapsed)
    return ranks, latency


def mean(rows: Sequence[dict[str, float]]) -> dict[str, float]:
    names = [*(f"recall@{k}" for k in KS), "hit@10", "mrr"]
    return {name: round(sum(row[name] for row in rows) / max(1, len(rows)), 3) for name in names}


def rows_of(ranks: dict[str, Ranks]) -> tuple[str, ...]:
    """The rows measured: every mode, fresh hybrid, RRF, and PLAIN_ROW when it was asked."""
    rows = (*MODES, FRESH_ROW, RRF_ROW)
    return (*rows, PLAIN_ROW) if any(PLAIN_ROW in row for row in ranks.values()) else rows


def aggregate(questions: Sequence[Question], ranks: dict[str, Ranks]) -> dict[str, Any]:
    """Mean metrics per row (modes, RRF and the others asked), overall and per question type."""
    report: dict[str, Any] = {
        "questions": len(questions),
        "by_type_count": {t: sum(q.qtype == t for q in questions) for t in QTYPES},
    }
    for row in rows_of(ranks):
        scored = [(q.qtype, metrics(ranks[q.qid][row], q.keys)) for q in questions]
        report[row] = {
            "overall": mean([s for _, s in scored]),
            "by_type": {t: mean([s for qt, s in scored if qt == t]) for t in QTYPES},
        }
    return report


def first_hits(questions: Sequence[Question], ranks: dict[str, Ranks]) -> list[dict[str, Any]]:
    """Rank of the first answering turn per row (null when not in the top 20), per question."""
    rows: list[dict[str, Any]] = []
    for q in questions:
        first: dict[str, int | None] = {}
        for row, ranked in ranks[q.qid].items():
            first[row] = next((i for i, key in enumerate(ranked, 1) if key in q.keys), None)
        rows.append({"qid": q.qid, "type": q.qtype, "split": q.split, "first_hit": first})
    return rows


async def measure(
    settings: Settings, dataset: Dataset, split: str, ask: bool = True, plain: bool = False
) -> dict[str, Any]:
    """Ingest every conversation through the API, wait until every contextual text is indexed
    (as a later question would find it), then (unless not `ask`) ask the split's questions in
    every mode (and with `plain`, PLAIN_ROW's)."""
    app = _create_app(settings)
    transport = httpx.ASGITransport(app=app)
    questions = list(iter_split(dataset, split))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1", timeout=120) as client,
    ):
        seconds = await ingest(client, dataset.turns)
        store = app.state.runtime_ref.get().vectors.store_id
        fresh: dict[str, Any] = {"backlog_before": await context_backlog(settings.neo4j.uri, store)}
        fresh_ranks, fresh_latency = await rank_fresh(client, questions) if ask else ({}, [])
        fresh["backlog_after"] = await context_backlog(settings.neo4j.uri, store)
        drained = await wait_context(settings.neo4j.uri, timeout_s=3600, vector_store=store)
        ranks, latency = await rank_all(client, questions) if ask else ({}, {})
        for qid, ranked in fresh_ranks.items():
            ranks[qid][FRESH_ROW] = ranked
        if ask and plain:
            stores = app.state.runtime_ref.get().retrieval.channels.stores
            plain_retrieval = Retrieval(without_contexts(settings), stores)
            for qid, ranked in (await rank_plain(plain_retrieval, questions)).items():
                ranks[qid][PLAIN_ROW] = ranked
        if ask:
            latency[FRESH_ROW] = fresh_latency
    ingested = {
        "turns": len(dataset.turns),
        "seconds": round(seconds, 1),
        "turns_per_s": round(len(dataset.turns) / seconds, 1),
        "context_drain_s": round(drained, 1),
        "context_hops": settings.search.context_hops,
        "fresh": fresh,
    }
    if not ask:
        return {"ingest": ingested}
    splits = ("tune", "heldout", "all") if split == "all" else (split,)
    return {
        "ingest": ingested,
        "latency_ms": {mode: summary(samples) for mode, samples in latency.items()},
        "splits": {
            name: aggregate([q for q in questions if name in ("all", q.split)], ranks)
            for name in splits
        },
        "per_question": first_hits(questions, ranks),
    }


def run(
    style: str,
    conversations: int,
    turns: int,
    split: str,
    seed: int,
    ask: bool = True,
    plain: bool = False,
    model_file: Path | None = None,
) -> dict[str, Any]:
    dataset = STYLES[style][0](conversations, turns, seed)
    print(
        f"{len(dataset.turns)} turns, {len(dataset.questions)} questions "
        f"({sum(q.split == 'tune' for q in dataset.questions)} tune)",
        file=sys.stderr,
    )
    with local_neo4j() as (neo4j, folder):
        settings = service_settings(neo4j, folder / "service", model_file)
        results = asyncio.run(measure(settings, dataset, split, ask, plain))
    config = {"conversations": conversations, "turns": turns, "seed": seed, "split": split}
    if style != "dialogue":
        config = {"style": style, **config}
    if model_file is not None:
        config = {**config, "model": model_file.stem}
    if not ask:
        config = {**config, "split": "none", "context_hops": results["ingest"]["context_hops"]}
    return {"config": config, **results}


def service_settings(neo4j: Neo4jSettings, data: Path, model_file: Path | None = None) -> Settings:
    """The service's settings; with `model_file`, that model named by its stem."""
    if model_file is None:
        return load_settings(data_dir=data, neo4j=neo4j, log_level="WARNING")
    embedding = EmbeddingSettings(model=model_file.stem, model_file=model_file)
    return load_settings(data_dir=data, neo4j=neo4j, embedding=embedding, log_level="WARNING")


def table(name: str, report: dict[str, Any], latency: dict[str, Any]) -> str:
    """The split's rows as aligned text: overall metrics, then recall@10 / MRR per type."""
    counts = " ".join(f"{t}={n}" for t, n in report["by_type_count"].items())
    lines = [f"\n[{name}] {report['questions']} questions ({counts})"]
    lines.append(
        f"{'mode':<18}{'R@5':>7}{'R@10':>7}{'R@20':>7}{'hit@10':>8}{'MRR':>7}{'p50 ms':>9}"
    )
    rows = tuple(row for row in (*MODES, FRESH_ROW, RRF_ROW, PLAIN_ROW) if row in report)
    for row in rows:
        m = report[row]["overall"]
        p50 = f"{latency[row]['p50_ms']:.1f}" if row in latency else "-"
        lines.append(
            f"{row:<18}{m['recall@5']:>7.3f}{m['recall@10']:>7.3f}{m['recall@20']:>7.3f}"
            f"{m['hit@10']:>8.3f}{m['mrr']:>7.3f}{p50:>9}"
        )
    lines.append(f"{'R@10 / MRR':<18}" + "".join(f"{t:>15}" for t in QTYPES))
    for row in rows:
        cells = report[row]["by_type"]
        parts = [f"{cells[t]['recall@10']:.2f} / {cells[t]['mrr']:.2f}" for t in QTYPES]
        lines.append(f"{row:<18}" + "".join(f"{part:>15}" for part in parts))
    return "\n".join(lines)


def revision() -> str:
    """The checked-out commit, `+dirty` when service/ or cypher/ differ from it."""
    git = ["git", "-C", str(RESULTS.parent.parent)]
    try:
        short = [*git, "rev-parse", "--short", "HEAD"]
        head = subprocess.run(short, capture_output=True, text=True)
        status = [*git, "status", "--porcelain", "service", "cypher"]
        dirty = subprocess.run(status, capture_output=True, text=True)
    except OSError:
        return "unknown"
    return (head.stdout.strip() or "unknown") + ("+dirty" if dirty.stdout.strip() else "")


def write(results: dict[str, Any]) -> Path:
    """bench/results/conversation_quality[_assistant][_<C>x<T>][_<split>][_<model>].json, or for
    an ingest alone conversation_ingest[_assistant][_<C>x<T>]_hops<H>[_<model>].json."""
    config = results["config"]
    style = config.get("style", "dialogue")
    name = "conversation_quality" if config["split"] != "none" else "conversation_ingest"
    if style != "dialogue":
        name += f"_{style}"
    defaults = STYLES[style][1]
    if (config["conversations"], config["turns"]) != (defaults["conversations"], defaults["turns"]):
        name += f"_{config['conversations']}x{config['turns']}"
    if config["split"] == "none":
        name += f"_hops{config['context_hops']}"
    elif config["split"] != "all":
        name += f"_{config['split']}"
    if "model" in config:
        name += f"_{config['model']}"
    payload = {**result_header(name), "revision": revision(), **results}
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(payload, indent=2) + "\n")
    return path


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--style", choices=tuple(STYLES), default="dialogue")
    parser.add_argument("--conversations", type=int, help="default: 10")
    parser.add_argument("--turns", type=int, help="per conversation; default 300 (assistant 120)")
    parser.add_argument("--split", choices=("tune", "heldout", "all"), default="all")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--without-contexts", action="store_true", help=f"add the {PLAIN_ROW} row")
    parser.add_argument("--ingest-only", action="store_true", help="saves and drain, no questions")
    parser.add_argument("--model-file", type=Path, help="another ONNX export of the model")
    args = parser.parse_args(argv)
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one INFO line per request otherwise
    defaults = STYLES[args.style][1]
    results = run(
        args.style,
        args.conversations or defaults["conversations"],
        args.turns or defaults["turns"],
        args.split,
        args.seed,
        not args.ingest_only,
        args.without_contexts,
        args.model_file,
    )
    ingest = results["ingest"]
    print(
        f"ingested {ingest['turns']} turns in {ingest['seconds']} s ({ingest['turns_per_s']}/s), "
        f"context backlog drained {ingest['context_drain_s']} s later"
    )
    for name, report in results.get("splits", {}).items():
        print(table(name, report, results["latency_ms"]))
    print(f"\nwritten to {write(results)}")


if __name__ == "__main__":
    main()
