"""Multi-session chats between a user and an assistant, generated from a seed: the user's short
asks, the assistant's long answers, facts either side states and the questions that recall them.

Each turn is one memory (`chat3:s02:t017`) linked to the previous turn of its session, as in
`bench.conversations`, whose Turn, Question, Dataset and tune/heldout split it shares.
"""

from __future__ import annotations

import random

from bench import assistant_vocab as a
from bench import conversation_vocab as v
from bench.assistant_facts import BUILDERS, answer
from bench.conversation_facts import Episode, Line, Person, Plan
from bench.conversations import (
    SEED,
    Dataset,
    Question,
    Turn,
    add_session,
    drafted_questions,
    session_dates,
)

TURNS_PER_SESSION = 20
DEFAULTS = {"conversations": 10, "turns": 120}


def generate(conversations: int = 10, turns: int = 120, seed: int = SEED) -> Dataset:
    """`conversations` users, each chatting with the assistant for about `turns` turns."""
    if not 1 <= conversations <= len(v.NAMES):
        raise ValueError(f"conversations must be 1..{len(v.NAMES)}")
    rng = random.Random(seed)
    users = rng.sample(v.NAMES, conversations)
    all_turns: list[Turn] = []
    questions: list[Question] = []
    for index, user in enumerate(users):
        bystanders = tuple(name for name in v.NAMES if name != user)
        said, asked = _chat(index, user, bystanders, max(turns, 40), rng)
        all_turns += said
        questions += asked
    return Dataset(tuple(all_turns), tuple(questions))


def _chat(
    index: int, user: str, bystanders: tuple[str, ...], turns: int, rng: random.Random
) -> tuple[list[Turn], list[Question]]:
    sessions = max(4, round(turns / TURNS_PER_SESSION))
    plan = Plan()
    person = Person(user, a.ASSISTANT, sessions, rng, bystanders)
    share = 0.9 * min(1.0, turns / 120)
    for build in BUILDERS:
        if rng.random() < share:
            build(person, plan)
    said: list[Turn] = []
    where: dict[str, Turn] = {}
    for session, start in enumerate(session_dates(sessions, rng)):
        budget = turns // sessions + (1 if session < turns % sessions else 0)
        episodes = [episode for episode in plan.episodes if episode.session == session]
        rng.shuffle(episodes)
        lines = _session_lines(person, episodes, budget)
        add_session(f"chat{index}", session, lines, start, 90, said, where)
    return said, drafted_questions(f"chat{index}", plan, where)


def _session_lines(p: Person, episodes: list[Episode], budget: int) -> list[Line]:
    """An opening exchange, other asks between the episodes, a closing exchange; the user and
    the assistant alternate (every episode is asks and answers)."""
    rng = p.rng
    facts = sum(len(episode.lines) for episode in episodes) // 2
    filler = max(0, budget // 2 - facts - 2)
    cuts = sorted(rng.randint(0, filler) for _ in episodes)
    gaps = [b - a for a, b in zip([0, *cuts], [*cuts, filler], strict=True)]
    lines = [
        Line(p.who, rng.choice(a.SESSION_OPENERS)),
        Line(p.other, rng.choice(a.OPENER_REPLIES)),
    ]
    for gap, episode in zip(gaps, [*episodes, None], strict=True):
        for _ in range(gap):
            topic, ask = rng.choice(a.SMALL_ASKS)
            text = ask.format(name=p.name(), city=rng.choice(v.CITIES))
            lines += [Line(p.who, text), Line(p.other, answer(rng, topic))]
        if episode is not None:
            lines.extend(episode.lines)
    lines += [
        Line(p.who, rng.choice(a.SESSION_CLOSERS)),
        Line(p.other, rng.choice(a.CLOSER_REPLIES)),
    ]
    return lines
