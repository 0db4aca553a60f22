"""How much model work the context indexer does while a store is loaded: the perf corpus (links
drawn by preferential attachment, about 4 per memory) saved through the batch path, 100 at a
time, with the indexer caught up after each batch as a background indexer that keeps up would
be. Counts each refresh by outcome (approximated: first pass; embedded: second pass; kept: its
text and payload unchanged since its vector was embedded, nothing written), and times the
loading and the refreshing.

Without keeping, every kept refresh would have been approximated and embedded again: the
embeddings saved are `kept` of `embedded + kept`.

Run: `python -m bench.context_catchup [--size 2000]`; writes
bench/results/context_catchup_<size>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import local_neo4j, open_context_index, open_services, write_results
from bench.perf_corpus import corpus
from devtools.seeding import save_in_batches
from service.core.models import SaveInput
from service.core.write.batch import BatchSaver

NAMESPACE = "catchup"
BATCH = 100


async def measure(neo4j_uri: str, data: Path, size: int) -> dict[str, Any]:
    async with (
        open_services(neo4j_uri, data) as (memories, _),
        open_context_index(memories, data) as index,
    ):
        saver = BatchSaver(memories.settings, memories.stores)
        items = [SaveInput.model_validate(item) for item in corpus(size)]
        load_s = refresh_s = 0.0
        for start in range(0, size, BATCH):
            began = time.perf_counter()
            await save_in_batches(saver, NAMESPACE, items[start : start + BATCH])
            middle = time.perf_counter()
            await index.refresh_all()
            load_s += middle - began
            refresh_s += time.perf_counter() - middle
    counts = dict(index.counts)
    redone = counts["embedded"] + counts["kept"]
    return {
        "size": size,
        "batch": BATCH,
        "load_s": round(load_s, 1),
        "refresh_s": round(refresh_s, 1),
        "refreshes": counts,
        "refreshes_per_memory": round(sum(counts.values()) / size, 2),
        "embeddings_without_keeping": redone,
        "embeddings_saved_share": round(counts["kept"] / redone, 3) if redone else 0.0,
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="The context indexer's work during a load.")
    parser.add_argument("--size", type=int, default=2000)
    args = parser.parse_args(argv)
    with local_neo4j() as (neo4j, _), tempfile.TemporaryDirectory() as folder:
        results = asyncio.run(measure(neo4j.uri, Path(folder), args.size))
    write_results(f"context_catchup_{args.size}", results)


if __name__ == "__main__":
    main()
