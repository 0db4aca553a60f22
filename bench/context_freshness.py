"""How long a memory saved behind a long context backlog waits for its context. The perf corpus
(links drawn by preferential attachment, about 4 per memory) is saved through the batch path
while the background indexer runs; while the backlog that load leaves drains, one memory is
saved every `--interval` seconds through memory_save, each in a namespace of its own (so that
namespace's backlog is that memory alone). For each: the store's backlog when it was saved, and
the seconds until its context is searchable (the first pass) and final (its text embedded).

Run: `python -m bench.context_freshness [--size 2000] [--fresh 10] [--interval 5]`; writes
bench/results/context_freshness_<size>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import (
    local_neo4j,
    open_context_index,
    open_services,
    summary,
    wait_context,
    write_results,
)
from bench.perf_corpus import corpus
from devtools.seeding import save_in_batches
from service.core.memories import MemoryService
from service.core.models import SaveInput
from service.core.upkeep.context_index import ContextIndex, background
from service.core.write.batch import BatchSaver

NAMESPACE = "freshness"
POLL_S = 0.05
TIMEOUT_S = 3600.0


async def fresh_memory(
    memories: MemoryService, index: ContextIndex, n: int, item: SaveInput, delay_s: float
) -> dict[str, float]:
    """Save `item` (without links) after `delay_s` in namespace `fresh-<n>`; the store's backlog
    then, and the seconds until its context is searchable and final."""
    await asyncio.sleep(delay_s)
    namespace = f"fresh-{n}"
    backlog = await index.backlog()
    saved_at = time.perf_counter()
    await memories.save(namespace, item.model_copy(update={"links": []}))
    searchable_s: float | None = None
    while (waited := time.perf_counter() - saved_at) < TIMEOUT_S:
        details = await index.backlog_details(namespace)
        if searchable_s is None and not details.pending:
            searchable_s = waited
        if not details.total:
            return {"backlog": backlog, "searchable_s": searchable_s or waited, "final_s": waited}
        await asyncio.sleep(POLL_S)
    raise RuntimeError(f"the context of a memory saved in {namespace} was not final in time")


async def measure(
    neo4j_uri: str, data: Path, size: int, fresh: int, interval_s: float
) -> dict[str, Any]:
    async with (
        open_services(neo4j_uri, data) as (memories, _),
        open_context_index(memories, data) as index,
        background(index),
    ):
        items = [SaveInput.model_validate(item) for item in corpus(size + fresh)]
        saver = BatchSaver(memories.settings, memories.stores)
        began = time.perf_counter()
        await save_in_batches(saver, NAMESPACE, items[:size])
        load_s = time.perf_counter() - began
        left = await index.backlog_details()
        waits = await asyncio.gather(
            *(
                fresh_memory(memories, index, n, item, n * interval_s)
                for n, item in enumerate(items[size:])
            )
        )
        await wait_context(neo4j_uri, TIMEOUT_S, memories.stores.vectors.store_id)
        drain_s = time.perf_counter() - began - load_s
    return {
        "size": size,
        "load_s": round(load_s, 1),
        "backlog_after_load": {"pending": left.pending, "approximate": left.approximate},
        "drain_s": round(drain_s, 1),
        "fresh": {
            "interval_s": interval_s,
            "searchable": summary([w["searchable_s"] * 1000 for w in waits]),
            "final": summary([w["final_s"] * 1000 for w in waits]),
            "each": [{name: round(value, 2) for name, value in w.items()} for w in waits],
        },
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Context freshness behind a bulk load's backlog.")
    parser.add_argument("--size", type=int, default=2000)
    parser.add_argument("--fresh", type=int, default=10)
    parser.add_argument("--interval", type=float, default=5.0)
    args = parser.parse_args(argv)
    with local_neo4j() as (neo4j, _), tempfile.TemporaryDirectory() as folder:
        results = asyncio.run(
            measure(neo4j.uri, Path(folder), args.size, args.fresh, args.interval)
        )
    write_results(f"context_freshness_{args.size}", results)


if __name__ == "__main__":
    main()
