"""Long multi-session conversations for the retrieval-quality benchmark, generated from a seed.
Owns the layout of facts and small talk into dated turns, the questions and their tune/heldout half.

Each turn is one memory (`conv3:s02:t017`) linked to the previous turn of its session; each
question names the keys of the turns that answer it. Nothing is downloaded: the text comes from
templates over the vocabularies in `bench.conversation_vocab`.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from bench import conversation_vocab as v
from bench.conversation_facts import BUILDERS, Episode, Line, Person, Plan, QType

Split = Literal["tune", "heldout"]
SEED = 20240601
TURNS_PER_SESSION = 25
_PLACEHOLDER = re.compile(r"\{(date|prev|next|plus):([^:}]+)(?::(\d+))?\}")


@dataclass(frozen=True)
class Turn:
    """One utterance: a memory to save, with its session date in the content."""

    key: str
    session_id: str
    speaker: str
    text: str
    at: datetime
    previous: str | None

    @property
    def content(self) -> str:
        return f"[{self.at.date().isoformat()}] {self.speaker}: {self.text}"

    def body(self) -> dict[str, Any]:
        """The POST /v1/memories body an agent would send for this turn."""
        body: dict[str, Any] = {
            "content": self.content,
            "key": self.key,
            "type": "conversation",
            "session_id": self.session_id,
            "metadata": {"said_at": self.at.isoformat(), "speaker": self.speaker},
        }
        if self.previous is not None:
            body["links"] = [{"key": self.previous, "weight": 0.5, "type": "next"}]
        return body


@dataclass(frozen=True)
class Question:
    """A paraphrased question, its expected answer and the keys of the turns that answer it."""

    qid: str
    qtype: QType
    text: str
    answer: str
    keys: tuple[str, ...]
    split: Split


@dataclass(frozen=True)
class Dataset:
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]


def generate(conversations: int = 10, turns: int = 300, seed: int = SEED) -> Dataset:
    """`conversations` pairs of people talking for about `turns` turns each."""
    if not 1 <= conversations <= len(v.NAMES) // 2:
        raise ValueError(f"conversations must be 1..{len(v.NAMES) // 2}")
    rng = random.Random(seed)
    people = rng.sample(v.NAMES, 2 * conversations)
    all_turns: list[Turn] = []
    questions: list[Question] = []
    for index in range(conversations):
        pair = (people[2 * index], people[2 * index + 1])
        bystanders = tuple(name for name in v.NAMES if name not in pair)
        said, asked = _conversation(index, pair, bystanders, max(turns, 40), rng)
        all_turns += said
        questions += asked
    return Dataset(tuple(all_turns), tuple(questions))


def split_of(qid: str) -> Split:
    """Stable half of a question: by a hash of its id, so it never depends on generation order."""
    return "tune" if hashlib.sha256(qid.encode()).digest()[0] % 2 == 0 else "heldout"


def _conversation(
    index: int, pair: tuple[str, str], bystanders: tuple[str, ...], turns: int, rng: random.Random
) -> tuple[list[Turn], list[Question]]:
    sessions = max(4, round(turns / TURNS_PER_SESSION))
    plan = Plan()
    share = 0.85 * min(1.0, turns / 300)
    for who, other in (pair, pair[::-1]):
        person = Person(who, other, sessions, rng, bystanders)
        for build in BUILDERS:
            if rng.random() < share:
                build(person, plan)
    dates = session_dates(sessions, rng)
    said, where = _layout(index, pair, plan, dates, turns, rng)
    return said, drafted_questions(f"conv{index}", plan, where)


def drafted_questions(prefix: str, plan: Plan, where: dict[str, Turn]) -> list[Question]:
    """The plan's questions, their ids under `prefix`, answers and keys from where refs landed."""
    return [
        Question(
            qid=f"{prefix}:{draft.qid}",
            qtype=draft.qtype,
            text=draft.text,
            answer=resolve(draft.answer, where),
            keys=tuple(where[ref].key for ref in draft.refs),
            split=split_of(f"{prefix}:{draft.qid}"),
        )
        for draft in plan.drafts
    ]


def session_dates(sessions: int, rng: random.Random) -> list[datetime]:
    """Weeks apart (one to five), evening or daytime, starting somewhere in 2023."""
    day = datetime(2023, 1, 2) + timedelta(days=rng.randrange(200))
    dates: list[datetime] = []
    for _ in range(sessions):
        dates.append(day + timedelta(hours=rng.randint(8, 21), minutes=rng.randrange(60)))
        day += timedelta(days=rng.randint(7, 35))
    return dates


def _layout(
    index: int,
    pair: tuple[str, str],
    plan: Plan,
    dates: list[datetime],
    turns: int,
    rng: random.Random,
) -> tuple[list[Turn], dict[str, Turn]]:
    """Dated, alternating turns of every session; and the turn each fact ref landed on."""
    said: list[Turn] = []
    where: dict[str, Turn] = {}
    sessions = len(dates)
    for session, start in enumerate(dates):
        budget = turns // sessions + (1 if session < turns % sessions else 0)
        episodes = [episode for episode in plan.episodes if episode.session == session]
        rng.shuffle(episodes)
        lines = _session_lines(pair, episodes, budget, rng)
        add_session(f"conv{index}", session, lines, start, 45, said, where)
    return said, where


def add_session(
    conversation: str,
    session: int,
    lines: Iterable[Line],
    start: datetime,
    spacing_s: int,
    said: list[Turn],
    where: dict[str, Turn],
) -> None:
    """Append one session's lines to `said` as turns `spacing_s` apart, each linked to the turn
    before it; `where` learns the turn each fact ref landed on."""
    previous: str | None = None
    for position, line in enumerate(lines):
        turn = Turn(
            key=f"{conversation}:s{session:02d}:t{len(said):03d}",
            session_id=f"{conversation}:s{session:02d}",
            speaker=line.speaker,
            text=line.text,
            at=start + timedelta(seconds=spacing_s * position),
            previous=previous,
        )
        said.append(turn)
        previous = turn.key
        if line.ref:
            where[line.ref] = turn


def _session_lines(
    pair: tuple[str, str], episodes: list[Episode], budget: int, rng: random.Random
) -> list[Line]:
    """Greeting, small talk between the episodes, goodbye; speakers strictly alternate."""
    speakers = list(pair) if rng.random() < 0.5 else list(pair[::-1])
    facts = sum(len(episode.lines) for episode in episodes)
    filler = max(0, budget - facts - 2 - len(episodes) // 2)  # ~half need a turn to align
    cuts = sorted(rng.randint(0, filler) for _ in episodes)
    gaps = [b - a for a, b in zip([0, *cuts], [*cuts, filler], strict=True)]
    lines: list[Line] = []

    def next_speaker() -> str:
        return speakers[len(lines) % 2]

    def listener() -> str:
        return speakers[(len(lines) + 1) % 2]

    lines.append(Line(next_speaker(), rng.choice(v.GREETINGS).format(other=listener())))
    for gap, episode in zip(gaps, [*episodes, None], strict=True):
        for _ in range(gap):
            lines.append(Line(next_speaker(), _small_talk(rng, listener(), pair)))
        if episode is None:
            continue
        if episode.lines[0].speaker != next_speaker():
            lines.append(Line(next_speaker(), _small_talk(rng, listener(), pair)))
        lines.extend(episode.lines)  # episodes alternate inside, so parity still names the speaker
    lines.append(Line(next_speaker(), rng.choice(v.GOODBYES).format(other=listener())))
    return lines


def _small_talk(rng: random.Random, listener: str, pair: tuple[str, str]) -> str:
    names = [name for name in v.NAMES if name not in pair]
    return rng.choice(v.SMALL_TALK).format(
        other=listener,
        name=rng.choice(names),
        city=rng.choice(v.CITIES),
        food=rng.choice(v.FOODS),
        weekday=rng.choice(v.WEEKDAYS),
    )


def resolve(answer: str, where: dict[str, Turn]) -> str:
    """Replace date placeholders by dates computed from the session of the referred turn."""

    def one(match: re.Match[str]) -> str:
        kind, ref, number = match.group(1), match.group(2), int(match.group(3) or 0)
        day = where[ref].at.date()
        if kind == "plus":
            day += timedelta(days=number)
        elif kind == "prev":
            day -= timedelta(days=(day.weekday() - number - 1) % 7 + 1)
        elif kind == "next":
            day += timedelta(days=(number - day.weekday() - 1) % 7 + 1)
        return f"{day:%A} {day.isoformat()}"

    return _PLACEHOLDER.sub(one, answer)


def iter_split(dataset: Dataset, split: str) -> Iterator[Question]:
    """The questions of one split (`tune`, `heldout`) or of both (`all`)."""
    return (q for q in dataset.questions if split in ("all", q.split))
