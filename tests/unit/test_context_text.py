"""The graph-contextual text of a memory: its own text and its neighbours', in time order, with
those two links away only while the text stays short enough to be embedded whole."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest

from service.core.upkeep.context_index import (
    FAR_TEXT_CHARS,
    MAX_PART_CHARS,
    context_text,
    mean_vector,
    part_weights,
    read_whole,
)


def test_neighbours_join_in_time_order_around_the_memory() -> None:
    own = (200, "he needs surgery on his knee next Tuesday")
    neighbours = [(300, "poor Max!"), (100, "what did the vet say about Max?")]
    assert context_text(own, neighbours) == (
        "what did the vet say about Max?\nhe needs surgery on his knee next Tuesday\npoor Max!"
    )


def test_each_part_is_cut_and_empty_parts_are_dropped() -> None:
    text = context_text((1, "x" * (MAX_PART_CHARS + 50)), [(1, ""), (2, "next")])
    assert text == "x" * MAX_PART_CHARS + "\nnext"


def test_a_memory_without_neighbours_is_its_own_text() -> None:
    assert context_text((5, "alone"), []) == "alone"


def test_parts_two_links_away_join_in_time_order_while_the_text_stays_within_its_budget() -> None:
    own, near = (30, "o" * 500), [(20, "n" * 500)]
    far = [(40, "f" * 150), (10, "g" * 200), (50, "h" * 40)]
    assert len(context_text(own, near, far[:1])) == 1152 <= FAR_TEXT_CHARS
    assert context_text(own, near, far) == "\n".join(["n" * 500, "o" * 500, "f" * 150, "h" * 40])


def test_parts_one_link_away_join_whatever_their_length() -> None:
    own, near = (2, "o" * MAX_PART_CHARS), [(1, "a" * MAX_PART_CHARS), (3, "b" * MAX_PART_CHARS)]
    text = context_text(own, near, [(4, "far")])
    assert text == "\n".join(["a" * MAX_PART_CHARS, "o" * MAX_PART_CHARS, "b" * MAX_PART_CHARS])


def test_the_mean_vector_joins_the_stored_vectors_of_the_memory_and_its_neighbours() -> None:
    eye = np.eye(4, dtype=np.float32)
    stored = {"own": eye[0], "left": eye[1], "right": eye[2]}
    row = {"id": "own", "neighbours": [[1, "", "a", "left"], [2, "", "b", "gone"]]}
    assert mean_vector(row, stored).tolist() == pytest.approx([0.70710677, 0.70710677, 0, 0])
    alone: dict[str, Any] = {"id": "own", "neighbours": []}
    assert mean_vector(alone, stored).tolist() == [1.0, 0.0, 0.0, 0.0]
    assert mean_vector(alone, stored).dtype == np.float32


def test_a_context_is_read_whole_when_no_part_of_its_text_is_cut_within_the_budget() -> None:
    assert read_whole((1, "o" * 500), [(0, "n" * 500)], [(2, "f" * 198)])
    # a far part that does not fit is left out of the text: the text is still read whole
    assert read_whole((1, "o" * 500), [(0, "n" * 500)], [(2, "f" * 199)])
    assert not read_whole((1, "o" * (MAX_PART_CHARS + 1)), [])
    assert not read_whole((1, "o"), [(0, "n" * (MAX_PART_CHARS + 1))])
    assert not read_whole((1, "o" * 600), [(0, "n" * 600)], [])  # 1,201 characters
    assert read_whole((1, "o" * MAX_PART_CHARS), [(0, "")])


def test_parts_weigh_their_characters_a_neighbour_at_most_the_memory_own() -> None:
    row = {
        "id": "own",
        "created_at": datetime(2026, 1, 1, tzinfo=UTC),
        "title": None,
        "content": "x" * 40,
        "neighbours": [
            [1, None, "y" * 10, "short", 1],
            [2, "Title", "z" * 700, "long", 2],
            [3, None, "w" * 1000, "left-out", 2],  # cut to 600, it does not fit: not in the text
        ],
    }
    assert part_weights(row) == {"own": 40.0, "short": 10.0, "long": 40.0, "left-out": 0.0}


def test_the_weighted_mean_leans_toward_the_heavier_part() -> None:
    eye = np.eye(2, dtype=np.float32)
    stored = {"own": eye[0], "near": eye[1]}
    row = {"id": "own", "neighbours": [[1, "", "a", "near"]]}
    weighted = mean_vector(row, stored, {"own": 3.0, "near": 1.0})
    assert weighted.tolist() == pytest.approx([0.9486833, 0.31622777])
