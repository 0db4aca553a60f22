"""Retrieval quality on LoCoMo, a public benchmark of long real-style conversations (10 of them,
each between two people over up to 35 dated sessions, with questions labelled by the turns that
answer them). Its data is not part of this repository: pass the path of `locomo10.json`.

`python -m bench.bench_locomo PATH [--tune N] [--grid]` stores every turn as one memory (content
`[date] Speaker: text`, a photo's caption appended, a `next` link to the previous turn of its
session, like an agent saving a chat; all conversations in one namespace, as in
bench.conversations, so each question is ranked against every turn), asks the questions of
categories 1-4 (adversarial ones have no answering turns) and writes
bench/results/locomo_defaults.json: for the first N conversations (`tune`, 2 by default) and the
others (`heldout`), recall@5/10/20, hit@10, MRR and p50 per mode and question type, the textbook
RRF, the graph variants and the opt-in reranking; `--grid` also scores the settings of
`bench.tune_fusion.GRID` on the tune conversations and writes bench/results/locomo.json instead.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import tempfile
from collections.abc import Collection, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.bench_conversation_quality import revision
from bench.common import local_neo4j, write_results
from bench.conversation_facts import QType
from bench.conversations import Question, Split
from bench.tune_fusion import grid_and_halves, stored_corpus
from service.core.models import SaveInput

_REF = re.compile(r"D:?(\d+):(\d+)")
# LoCoMo's question categories; 5 (adversarial: the answer is not in the conversation) is left out.
CATEGORIES: dict[int, QType] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
}


def session_numbers(conversation: Mapping[str, Any]) -> Iterator[int]:
    """The numbers of the sessions that hold turns, in order."""
    numbers = sorted(
        int(name.removeprefix("session_"))
        for name in conversation
        if name.startswith("session_") and name.removeprefix("session_").isdigit()
    )
    return (n for n in numbers if conversation[f"session_{n}"])


def said_at(text: str) -> datetime:
    """A session's date, written like `1:56 pm on 8 May, 2023`."""
    return datetime.strptime(" ".join(text.split()), "%I:%M %p on %d %B, %Y")


def turn_bodies(index: int, conversation: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The POST /v1/memories bodies of one conversation's turns (keys `c<index>:<dia_id>`)."""
    bodies: list[dict[str, Any]] = []
    for number in session_numbers(conversation):
        day = said_at(conversation[f"session_{number}_date_time"]).date().isoformat()
        previous: str | None = None
        for turn in conversation[f"session_{number}"]:
            key = f"c{index}:{turn_ref(turn['dia_id'])}"
            caption = turn.get("blip_caption")
            text = turn["text"] + (f" [shares a photo of {caption}]" if caption else "")
            body: dict[str, Any] = {
                "content": f"[{day}] {turn['speaker']}: {text}",
                "key": key,
                "type": "conversation",
                "session_id": f"c{index}:s{number}",
            }
            if previous is not None:
                body["links"] = [{"key": previous, "weight": 0.5, "type": "next"}]
            bodies.append(body)
            previous = key
    return bodies


def turn_refs(evidence: Sequence[str]) -> list[str]:
    """Turn ids of an evidence list, as `D<session>:<turn>`: a few entries hold several ids
    (`"D9:1 D4:4"`), a zero-padded number (`D30:05`) or a stray colon (`D:11:26`)."""
    return [f"D{int(s)}:{int(t)}" for entry in evidence for s, t in _REF.findall(entry)]


def turn_ref(dia_id: str) -> str:
    """A turn's own id written the way `turn_refs` writes evidence (`D03:01` → `D3:1`)."""
    return next(iter(turn_refs([dia_id])), dia_id)


def questions_of(
    index: int, sample: Mapping[str, Any], split: Split, turns: Collection[str]
) -> list[Question]:
    """Questions of categories 1-4 with the keys of their answering turns among `turns` (ids
    that name no turn are dropped; a question left without any is skipped)."""
    questions: list[Question] = []
    for number, qa in enumerate(sample["qa"]):
        qtype = CATEGORIES.get(qa.get("category", 5))
        keys = tuple(f"c{index}:{ref}" for ref in turn_refs(qa.get("evidence", [])))
        keys = tuple(key for key in dict.fromkeys(keys) if key in turns)
        if qtype is None or not keys:
            continue
        questions.append(
            Question(f"c{index}:q{number}", qtype, qa["question"], str(qa["answer"]), keys, split)
        )
    return questions


def load(path: Path, tune: int) -> tuple[list[SaveInput], list[Question], int]:
    """Every conversation's turns, the questions (those of the first `tune` conversations are
    the tune part) and how many questions of categories 1-4 name no turn."""
    samples: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    items: list[SaveInput] = []
    questions: list[Question] = []
    asked = 0
    for index, sample in enumerate(samples):
        bodies = turn_bodies(index, sample["conversation"])
        items += [SaveInput.model_validate(body) for body in bodies]
        split: Split = "tune" if index < tune else "heldout"
        questions += questions_of(index, sample, split, {body["key"] for body in bodies})
        asked += sum(1 for qa in sample["qa"] if qa.get("category", 5) in CATEGORIES)
    return items, questions, asked - len(questions)


async def measure(
    path: Path, tune: int, neo4j_uri: str, data: Path, grid_search: bool
) -> dict[str, Any]:
    """Store every conversation in one namespace, then the grid (with `grid_search`) on the
    tune part and the defaults on both parts."""
    items, questions, skipped = load(path, tune)
    async with stored_corpus(items, neo4j_uri, data) as (settings, stores, channels):
        grid, halves = await grid_and_halves(settings, stores, channels, questions, grid_search)
    grid.sort(key=lambda r: (-r["all"]["recall@10"], -r["all"]["mrr"]))
    return {
        "revision": revision(),
        "fusion": settings.search.fusion.model_dump(),
        "turns": len(items),
        "questions_without_turns": skipped,
        "tune_conversations": tune,
        "grid_on_tune": grid,
        **halves,
    }


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the arguments, measure on a fresh Neo4j, write bench/results/locomo.json."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("path", type=Path, help="locomo10.json")
    parser.add_argument("--tune", type=int, default=2, help="conversations in the tune part")
    parser.add_argument("--grid", action="store_true", help="score bench.tune_fusion.GRID too")
    args = parser.parse_args(argv)
    with local_neo4j() as (neo4j, _), tempfile.TemporaryDirectory() as folder:
        results = asyncio.run(measure(args.path, args.tune, neo4j.uri, Path(folder), args.grid))
    write_results("locomo" if args.grid else "locomo_defaults", results)


if __name__ == "__main__":
    main()
