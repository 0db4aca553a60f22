"""`mnemograph reconcile`: repair Neo4j and the vector stores after a crash; list the other vector
storages memories were written to, and adopt one after a change of embedding model."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from service.app import Runtime
    from service.config import Settings


def add_reconcile(commands: Any) -> None:
    """The `reconcile` command and its options (what it runs is imported when it runs: other
    commands start without it)."""
    reconcile = commands.add_parser("reconcile", help="repair Neo4j/Qdrant after a crash")
    reconcile.add_argument(
        "--full", action="store_true", help="also compare every id in both stores"
    )
    choice = reconcile.add_mutually_exclusive_group()
    choice.add_argument(
        "--storages",
        action="store_true",
        help="list the other vector storages memories were written to, and change nothing",
    )
    choice.add_argument(
        "--adopt",
        metavar="STORAGE",
        help="embed the memories of that vector storage (another model's) into this one",
    )
    reconcile.set_defaults(handler=run_reconcile, owner="reconcile")


def run_reconcile(settings: Settings, args: argparse.Namespace) -> int:
    """JSON on stdout: the other storages (`--storages`), or the reconcile's report; exit 2
    when `--adopt` names no other storage that holds memories."""
    from service.app import open_runtime

    async def run() -> int:
        # No background indexer: this command refreshes the backlog itself (and its errors stop it).
        async with open_runtime(settings, index_context=False) as runtime:
            if args.storages:
                current = runtime.reconciler.vectors.store_id
                others = await runtime.reconciler.other_storages()
                print(json.dumps({"storage": current, "others": others}))
                return 0
            adopted = 0
            if args.adopt is not None:
                refusal = await _adoption_refused(runtime, args.adopt)
                if refusal:
                    print(f"reconcile --adopt: {refusal}", file=sys.stderr)
                    return 2
                adopted = await runtime.reconciler.adopt(args.adopt)
            report = await _reconcile(runtime, args.full)
            print(json.dumps({**report, **({"adopted": adopted} if args.adopt else {})}))
            return 0

    return asyncio.run(run())


async def _adoption_refused(runtime: Runtime, storage: str) -> str | None:
    """Why `storage` cannot be adopted, if it cannot."""
    reconciler = runtime.reconciler
    if storage == reconciler.vectors.store_id:
        return f"{storage} is this service's own vector storage"
    others = await reconciler.other_storages()
    if storage not in others:
        listed = ", ".join(others) or "none"
        return f"no memory's vector was written to {storage}; other storages: {listed}"
    return None


async def _reconcile(runtime: Runtime, full: bool) -> dict[str, int]:
    """The reconcile with a bar for the vectors it writes, then one for the context backlog."""
    from rich.progress import MofNCompleteColumn

    from service.cli.progress_bars import progress

    with progress(MofNCompleteColumn()) as bar:
        pending = await runtime.reconciler.pending_vectors()
        vectors = bar.add_task("vectors", total=pending)
        report = await runtime.reconciler.run(
            full=full,
            drain_context=False,
            written_so_far=lambda n: bar.advance(vectors, n),
            marked_missing=lambda n: bar.update(vectors, total=pending + n),
        )
        context = bar.add_task("context", total=await runtime.context.backlog())
        await runtime.context.refresh_all(lambda count: bar.advance(context, count))
    return asdict(report)
