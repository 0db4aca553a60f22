"""The pure rules of supersession: which refs name what, and cycles refused."""

from __future__ import annotations

import pytest

from service.core.write.supersede import refuse_cycle, supersede_targets
from service.errors import InvalidParameter

CYCLE = (
    "Invalid supersedes value: '{}' supersedes the memory being saved (directly or through "
    "others). Must name memories that do not"
)


def test_targets_are_named_once_in_order_and_unknown_refs_are_listed() -> None:
    resolved = {"a": "id-a", "also-a": "id-a", "b": "id-b"}
    assert supersede_targets("new", ["b", "a", "also-a", "x"], resolved) == (
        ["id-b", "id-a"],
        ["x"],
    )


def test_a_memory_may_not_supersede_itself() -> None:
    with pytest.raises(InvalidParameter, match="'me' is the memory being saved"):
        supersede_targets("id-me", ["me"], {"me": "id-me"})


@pytest.mark.parametrize(
    ("chain", "old", "named"),
    [
        ({"v1": "v2"}, "v2", "key-v2"),  # v2 supersedes v1; v1 may not supersede v2
        ({"v1": "v2", "v2": "v3"}, "v3", "key-v3"),  # through v2
    ],
)
def test_superseding_a_memory_above_in_the_chain_is_refused(
    chain: dict[str, str], old: str, named: str
) -> None:
    with pytest.raises(InvalidParameter) as refused:
        refuse_cycle("v1", [old], chain, {old: named})
    assert refused.value.message == CYCLE.format(named)


def test_memories_below_or_beside_the_chain_may_be_superseded() -> None:
    chain = {"v1": "v2", "v2": "v3"}
    # Allowed: nothing is raised (the current one supersedes its older ones).
    assert refuse_cycle("v3", ["v1", "v2"], chain, {}) is None
    assert refuse_cycle("v1", ["other"], chain, {}) is None


def test_a_cycle_already_stored_ends_the_walk() -> None:
    assert refuse_cycle("a", ["z"], {"a": "b", "b": "a"}, {}) is None  # it returns, allowed
