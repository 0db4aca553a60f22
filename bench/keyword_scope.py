"""What per-namespace keyword scoring costs: one big namespace and many small ones, each with its
own fulltext indexes (made on the namespace's first keyword read).

Times, in-process through the service's own read and write paths: the first keyword read of a
new namespace (its two indexes made and online, then the query), memory_fulltext_search in a
small and in the big namespace, and a batch save into a namespace while all those indexes exist.
For comparison, the same Lucene queries over one store-wide index (the definition the namespaces'
indexes replaced, made here by the benchmark alone), filtered to the namespace as before.

Run: `python -m bench.keyword_scope [--namespaces 200] [--per-namespace 10] [--big 2000]`;
writes bench/results/keyword_scope.json.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from neo4j import AsyncDriver

from bench.common import local_neo4j, open_driver, open_services, summary, write_results
from bench.perf_corpus import COMPONENTS, NAMES, TOOLS, corpus
from devtools.seeding import save_in_batches
from service.core.models import SaveInput
from service.core.read.retrieval import Retrieval
from service.core.search_inputs import FulltextInput
from service.core.write.batch import BatchSaver
from service.stores.cypher_library import namespace_scope

BIG = "big"
QUERIES = 200
STORE_WIDE = (
    "CREATE FULLTEXT INDEX bench_store_wide IF NOT EXISTS FOR (m:Memory) "
    "ON EACH [m.title, m.summary, m.content, m.tags_text, m.key] OPTIONS {indexConfig: "
    "{`fulltext.analyzer`: 'standard-folding', `fulltext.eventually_consistent`: false}}"
)
LUCENE = (
    "CALL db.index.fulltext.queryNodes($index, $lucene, {limit: 1000}) YIELD node AS m, score "
    "WITH m, score WHERE m.namespace = $namespace RETURN m.id AS id, score LIMIT 10"
)


def keywords(rng: random.Random) -> list[str]:
    return [rng.choice(NAMES), rng.choice(COMPONENTS), rng.choice(TOOLS)]


async def measure(
    neo4j_uri: str, data: Path, namespaces: int, per_namespace: int, big: int
) -> dict[str, Any]:
    async with open_services(neo4j_uri, data) as (memories, retrieval):
        saver = BatchSaver(memories.settings, memories.stores)
        items = [SaveInput.model_validate(item | {"links": []}) for item in corpus(big)]
        await save_in_batches(saver, BIG, items)
        small = [f"small-{n:04d}" for n in range(namespaces)]
        for n, namespace in enumerate(small):
            chunk = items[n * per_namespace % big :][:per_namespace]
            await save_in_batches(saver, namespace, chunk)
        rng = random.Random(5)
        first = await time_fulltext(retrieval, small, rng)
        results: dict[str, Any] = {
            "namespaces": namespaces + 1,
            "per_namespace": per_namespace,
            "big": big,
            "first_keyword_read": summary(first),
            "fulltext_small": summary(await time_fulltext(retrieval, small * 2, rng)),
            "fulltext_big": summary(await time_fulltext(retrieval, [BIG] * QUERIES, rng)),
            "batch_save_10": summary(await time_saves(saver, small, items, rng)),
        }
        async with open_driver(
            memories.settings.neo4j.model_copy(update={"uri": neo4j_uri})
        ) as driver:
            results["lucene_alone"] = await compare_indexes(driver, small, rng)
    return results


async def time_fulltext(
    retrieval: Retrieval, namespaces: list[str], rng: random.Random
) -> list[float]:
    samples: list[float] = []
    for namespace in namespaces:
        started = time.perf_counter()
        await retrieval.fulltext(namespace, FulltextInput(keywords=keywords(rng)))
        samples.append((time.perf_counter() - started) * 1000)
    return samples


async def time_saves(
    saver: BatchSaver, namespaces: list[str], items: list[SaveInput], rng: random.Random
) -> list[float]:
    samples: list[float] = []
    for namespace in rng.sample(namespaces, min(50, len(namespaces))):
        batch = [
            item.model_copy(update={"key": f"{item.key}-again"}) for item in rng.sample(items, 10)
        ]
        started = time.perf_counter()
        await save_in_batches(saver, namespace, batch)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


async def compare_indexes(
    driver: AsyncDriver, small: list[str], rng: random.Random
) -> dict[str, Any]:
    """The same Lucene statement over a namespace's own index and over one store-wide index."""
    timings: dict[str, list[float]] = {
        f"{kind}_{size}": [] for kind in ("own", "store_wide") for size in ("big", "small")
    }
    await driver.execute_query(STORE_WIDE)
    await driver.execute_query("CALL db.awaitIndexes(600)")
    for _ in range(QUERIES):
        for size, namespace in (("big", BIG), ("small", rng.choice(small))):
            lucene = " OR ".join(keywords(rng))
            for kind, index in (
                ("own", namespace_scope(namespace)["text_index"]),
                ("store_wide", "bench_store_wide"),
            ):
                started = time.perf_counter()
                await driver.execute_query(LUCENE, index=index, lucene=lucene, namespace=namespace)
                timings[f"{kind}_{size}"].append((time.perf_counter() - started) * 1000)
    await driver.execute_query("DROP INDEX bench_store_wide")
    return {name: summary(samples) for name, samples in timings.items()}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="The cost of per-namespace keyword scoring.")
    parser.add_argument("--namespaces", type=int, default=200)
    parser.add_argument("--per-namespace", type=int, default=10)
    parser.add_argument("--big", type=int, default=2000)
    args = parser.parse_args(argv)
    with local_neo4j() as (neo4j, _), tempfile.TemporaryDirectory() as folder:
        results = asyncio.run(
            measure(neo4j.uri, Path(folder), args.namespaces, args.per_namespace, args.big)
        )
    write_results("keyword_scope", results)


if __name__ == "__main__":
    main()
