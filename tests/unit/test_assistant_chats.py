"""The generated assistant chats: a user's one-line asks, an assistant's long answers, sessions
linked turn by turn, and questions that point at the turns stating their facts."""

from __future__ import annotations

import itertools
import statistics
from collections import Counter

from bench.assistant_chats import generate
from bench.assistant_vocab import ASSISTANT
from bench.conversations import split_of


def test_the_same_seed_gives_the_same_chats() -> None:
    assert generate(2, 60, seed=7) == generate(2, 60, seed=7)
    assert generate(2, 60, seed=7) != generate(2, 60, seed=8)


def test_users_ask_in_one_line_and_the_assistant_answers_at_length() -> None:
    dataset = generate(3, 120)
    asks = [turn.text for turn in dataset.turns if turn.speaker != ASSISTANT]
    answers = [len(turn.text) for turn in dataset.turns if turn.speaker == ASSISTANT]
    assert (len(asks), len(answers)) == (180, 180)
    assert (max(len(ask) for ask in asks), sum("\n" in ask for ask in asks)) == (162, 0)
    assert (statistics.median(answers), max(answers)) == (750, 1847)
    assert sum(600 <= length <= 2000 for length in answers) == 116


def test_each_turn_links_to_the_previous_turn_of_its_session() -> None:
    turns = generate(1, 60).turns
    for before, turn in itertools.pairwise(turns):
        same_session = before.session_id == turn.session_id
        assert turn.previous == (before.key if same_session else None)
    assert turns[0].previous is None


def test_questions_of_every_type_name_turns_of_their_own_chat_and_keep_their_split() -> None:
    dataset = generate(4, 120)
    keys = {turn.key for turn in dataset.turns}
    assert set(Counter(q.qtype for q in dataset.questions)) == {
        "single-hop",
        "multi-hop",
        "temporal",
        "open-domain",
    }
    for question in dataset.questions:
        chat = question.qid.split(":")[0]
        assert all(key in keys and key.startswith(f"{chat}:") for key in question.keys)
        assert question.split == split_of(question.qid)


def test_the_assistant_states_facts_that_questions_recall() -> None:
    dataset = generate(4, 120)
    said = {turn.key: turn for turn in dataset.turns}
    recalled = [q for q in dataset.questions if "the assistant" in q.text]
    assert recalled
    assert all(said[q.keys[0]].speaker == ASSISTANT for q in recalled)
    assert all(q.answer in said[q.keys[0]].text for q in recalled)
