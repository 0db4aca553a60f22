"""A layered map (service/stores/layered_map.py) reads as the dict of every update applied in
turn, never changes the maps it was made from, and folds its top layer into a new base once the
layer outgrows the square root of the base."""

from __future__ import annotations

import random

from service.stores.layered_map import MIN_TOP, LayeredMap


def test_a_map_updated_many_times_reads_as_the_dict_of_its_updates() -> None:
    rng = random.Random(11)
    expected = {f"k{i}": i for i in range(5000)}
    layered = LayeredMap(dict(expected))
    for step in range(400):
        changes = {f"k{rng.randrange(5200)}": step for _ in range(rng.randrange(1, 4))}
        before, before_items = layered, dict(layered.items())
        layered = layered.updated(changes)
        expected.update(changes)
        assert dict(before.items()) == before_items  # the map updated is left as it was
        assert len(layered) == len(expected)
        assert layered == expected
        assert sorted(layered) == sorted(expected)
        probe = f"k{rng.randrange(5400)}"
        assert (probe in layered, layered.get(probe, -1)) == (
            probe in expected,
            expected.get(probe, -1),
        )


def test_the_top_layer_is_folded_into_a_new_base_past_the_square_root_of_the_base() -> None:
    base = {n: n for n in range(10_000)}  # √ = 100 entries on top at most
    layered = LayeredMap(base)
    for n in range(100):
        layered = layered.updated({-n - 1: n})
    assert (layered.base is base, len(layered.top), len(layered)) == (True, 100, 10_100)
    folded = layered.updated({-101: 0})
    assert (folded.base is base, folded.top, len(folded.base)) == (False, {}, 10_101)
    assert (folded[-101], folded[-1], folded[5]) == (0, 0, 5)


def test_a_small_base_keeps_up_to_min_top_entries_over_it() -> None:
    layered = LayeredMap({"a": 1})
    for n in range(MIN_TOP):
        layered = layered.updated({f"k{n}": n})
    assert len(layered.top) == MIN_TOP
    assert len(layered.updated({"b": 2}).top) == 0


def test_a_key_on_top_of_the_base_reads_its_update_and_counts_once() -> None:
    layered = LayeredMap({"a": 1, "b": 2}).updated({"a": 10, "c": 3})
    assert (layered["a"], layered["b"], layered.get("c"), layered.get("d")) == (10, 2, 3, None)
    assert (len(layered), list(layered)) == (3, ["b", "a", "c"])
    assert layered == {"a": 10, "b": 2, "c": 3}
