"""How many of a question's words its answering turns say: the generated conversations against
LoCoMo (docs/quality.md).

`python -m bench.question_overlap [LOCOMO_PATH]` prints, per benchmark, the mean share of a
question's content words (lower-cased, 3 letters or more, not a stop word) that appear in the
text of its answering turns, and the share of questions with none; writes
bench/results/question_overlap.json.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from bench.bench_locomo import load
from bench.common import write_results
from bench.conversations import Question, generate

_WORD = re.compile(r"[a-z0-9]+")
STOP_WORDS = frozenset((
    "a", "an", "the", "of", "to", "in", "on", "at", "for", "and", "or", "but", "is", "are",
    "was", "were", "be", "been", "do", "does", "did", "what", "which", "who", "whom", "when",
    "where", "why", "how", "has", "have", "had", "with", "from", "by", "as", "that", "this",
    "these", "those", "it", "its", "his", "her", "their", "them", "they", "she", "he", "you",
    "your", "my", "our", "we", "us", "about", "into", "after", "before", "up", "down", "out",
    "over", "than", "then", "there", "here", "would", "could", "should", "will", "can", "may",
    "might",
))  # fmt: skip


def content_words(text: str) -> set[str]:
    """Lower-cased words of 3 letters or more that are not stop words."""
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in STOP_WORDS}


def overlap(questions: Iterable[Question], text_of: Mapping[str, str]) -> dict[str, float]:
    """Mean share of each question's content words found in its answering turns' text, and the
    share of questions that share none (questions without content words are left out)."""
    shares: list[float] = []
    for question in questions:
        asked = content_words(question.text)
        if asked:
            said = set[str]().union(*(content_words(text_of[key]) for key in question.keys))
            shares.append(len(asked & said) / len(asked))
    return {
        "questions": len(shares),
        "mean_share": round(sum(shares) / len(shares), 3) if shares else 0.0,
        "share_with_none": round(sum(1 for s in shares if s == 0) / len(shares), 3)
        if shares
        else 0.0,
    }


def main(argv: Sequence[str] | None = None) -> None:
    """Measure the generated conversations and, given its path, LoCoMo."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("locomo", type=Path, nargs="?", help="locomo10.json")
    args = parser.parse_args(argv)
    dataset = generate()
    said = {turn.key: turn.text for turn in dataset.turns}
    results = {"generated": overlap(dataset.questions, said)}
    if args.locomo is not None:
        items, questions, _ = load(args.locomo, 0)
        # The turn's own words: its content less the `[date] Speaker: ` prefix.
        spoken = {item.key or "": item.content.split(": ", 1)[1] for item in items}
        results["locomo"] = overlap(questions, spoken)
    for name, row in results.items():
        print(f"{name}: {row}")
    write_results("question_overlap", results)


if __name__ == "__main__":
    main()
