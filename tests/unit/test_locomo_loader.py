"""bench.bench_locomo reads LoCoMo's layout: turns of non-empty sessions in order, captions
appended, a `next` link inside each session, questions of categories 1-4 with known turns."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.bench_locomo import load, questions_of, turn_bodies, turn_refs

SAMPLE: dict[str, Any] = {
    "qa": [
        {"question": "When did A swim?", "answer": 2022, "evidence": ["D1:2"], "category": 2},
        {"question": "Trick?", "adversarial_answer": "x", "evidence": ["D1:1"], "category": 5},
        {"question": "Lost?", "answer": "y", "evidence": ["D9:9"], "category": 1},
        {"question": "Both?", "answer": "z", "evidence": ["D2:1", "D9:9", "D2:1"], "category": 1},
        {"question": "Late?", "answer": "w", "evidence": ["D10:1"], "category": 4},
    ],
    "conversation": {
        "speaker_a": "A",
        "speaker_b": "B",
        "session_2_date_time": "7:00 pm on 20 May, 2023",
        "session_2": [{"speaker": "B", "dia_id": "D2:1", "text": "Look!", "blip_caption": "a cat"}],
        "session_1_date_time": " 1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "A", "dia_id": "D1:1", "text": "Hi B!"},
            {"speaker": "B", "dia_id": "D1:2", "text": "I swam today."},
        ],
        "session_3_date_time": "9:00 am on 1 June, 2023",
        "session_3": [],
        "session_10_date_time": "9:00 am on 2 June, 2023",
        "session_10": [{"speaker": "A", "dia_id": "D10:01", "text": "Bye."}],
    },
}


def test_turns_are_dated_in_session_order_with_captions_and_a_link_to_the_previous_turn() -> None:
    bodies = turn_bodies(4, SAMPLE["conversation"])
    assert [(b["key"], b["content"], b["session_id"]) for b in bodies] == [
        ("c4:D1:1", "[2023-05-08] A: Hi B!", "c4:s1"),
        ("c4:D1:2", "[2023-05-08] B: I swam today.", "c4:s1"),
        ("c4:D2:1", "[2023-05-20] B: Look! [shares a photo of a cat]", "c4:s2"),
        ("c4:D10:1", "[2023-06-02] A: Bye.", "c4:s10"),
    ]
    assert [b.get("links") for b in bodies] == [
        None,
        [{"key": "c4:D1:1", "weight": 0.5, "type": "next"}],
        None,
        None,
    ]


def test_questions_keep_categories_one_to_four_and_only_turns_that_exist() -> None:
    turns = {body["key"] for body in turn_bodies(4, SAMPLE["conversation"])}
    questions = questions_of(4, SAMPLE, "heldout", turns)
    assert [(q.qid, q.qtype, q.answer, q.keys, q.split) for q in questions] == [
        ("c4:q0", "temporal", "2022", ("c4:D1:2",), "heldout"),
        ("c4:q3", "multi-hop", "z", ("c4:D2:1",), "heldout"),
        ("c4:q4", "single-hop", "w", ("c4:D10:1",), "heldout"),
    ]


def test_the_first_conversations_are_the_tune_part_and_unanswerable_questions_are_counted(
    tmp_path: Path,
) -> None:
    path = tmp_path / "locomo10.json"
    path.write_text(json.dumps([SAMPLE, SAMPLE, SAMPLE]))
    items, questions, skipped = load(path, 2)
    assert [item.key for item in items[:5]] == [
        "c0:D1:1",
        "c0:D1:2",
        "c0:D2:1",
        "c0:D10:1",
        "c1:D1:1",
    ]
    assert len(items) == 12
    assert [(q.qid, q.split) for q in questions if q.qid.endswith(":q0")] == [
        ("c0:q0", "tune"),
        ("c1:q0", "tune"),
        ("c2:q0", "heldout"),
    ]
    assert (len(questions), skipped) == (9, 3)


def test_evidence_entries_with_several_or_padded_ids_name_each_turn() -> None:
    assert turn_refs(["D9:1 D4:4", "D30:05", "D:11:26", "D"]) == ["D9:1", "D4:4", "D30:5", "D11:26"]
