"""The graph channels' effect on conversations generated from other seeds than the published
benchmark's, none of them ever tuned on: hybrid with its defaults, without the walk, and without
any graph channel, on every question of each seed's conversations (both halves).

`python -m bench.graph_ablation [--seeds 1 2 3 4]` prints recall@10, MRR and multi-hop
recall@10 per seed and variant, and writes bench/results/graph_ablation.json.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import local_neo4j, write_results
from bench.conversations import generate
from bench.tune_fusion import VARIANTS, score, stored_corpus, with_fusion
from service.core.models import SaveInput

ABLATIONS: dict[str, dict[str, Any]] = {
    "hybrid (default)": {},
    "hybrid without the walk": VARIANTS["hybrid without graph evidence"],
    "hybrid without any graph channel": VARIANTS["hybrid without any graph channel"],
}


async def ablate(seed: int, conversations: int, turns: int, neo4j_uri: str, data: Path) -> Any:
    """One seed's conversations stored once, then every ablation scored on all its questions."""
    dataset = generate(conversations, turns, seed)
    items = [SaveInput.model_validate(turn.body()) for turn in dataset.turns]
    rows: dict[str, Any] = {}
    async with stored_corpus(items, neo4j_uri, data) as (settings, stores, channels):
        for name, change in ABLATIONS.items():
            fusion = settings.search.fusion.model_copy(update=change)
            retrieval = with_fusion(settings, stores, channels, fusion)
            rows[name] = await score(retrieval, dataset.questions)
            print(
                f"seed {seed} {name}: recall@10 {rows[name]['all']['recall@10']:.3f} "
                f"mrr {rows[name]['all']['mrr']:.3f} "
                f"multi-hop {rows[name]['multi-hop']['recall@10']:.3f}",
                file=sys.stderr,
            )
    return {"questions": Counter(q.qtype for q in dataset.questions), "rows": rows}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4])
    parser.add_argument("--conversations", type=int, default=10)
    parser.add_argument("--turns", type=int, default=300)
    args = parser.parse_args(argv)
    by_seed: dict[str, Any] = {}
    for seed in args.seeds:
        with local_neo4j() as (neo4j, _), tempfile.TemporaryDirectory() as folder:
            run = ablate(seed, args.conversations, args.turns, neo4j.uri, Path(folder))
            by_seed[str(seed)] = asyncio.run(run)
    config = {"conversations": args.conversations, "turns": args.turns, "seeds": args.seeds}
    write_results("graph_ablation", {"config": config, "by_seed": by_seed})


if __name__ == "__main__":
    main()
