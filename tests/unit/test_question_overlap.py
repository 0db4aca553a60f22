"""bench.question_overlap: the share of a question's content words its answering turns say."""

from __future__ import annotations

from bench.conversations import Question
from bench.question_overlap import content_words, overlap


def question(qid: str, text: str, *keys: str) -> Question:
    return Question(qid, "single-hop", text, "", keys, "tune")


def test_content_words_are_lower_cased_without_stop_words_or_short_words() -> None:
    assert content_words("When did Ana adopt the Beagle, at 10?") == {"ana", "adopt", "beagle"}


def test_overlap_averages_each_question_and_counts_those_sharing_nothing() -> None:
    said = {"t1": "Ana adopted a beagle", "t2": "The beagle is called Biscuit"}
    questions = [
        question("a", "Which beagle did Ana adopt?", "t1"),  # beagle, ana of beagle, ana, adopt
        question("b", "What is the dog called?", "t2"),  # called of dog, called
        question("c", "Where was the party?", "t1", "t2"),  # none of party
        question("d", "Who is it?", "t1"),  # no content words: left out
    ]
    assert overlap(questions, said) == {
        "questions": 3,
        "mean_share": round((2 / 3 + 1 / 2 + 0) / 3, 3),
        "share_with_none": round(1 / 3, 3),
    }
