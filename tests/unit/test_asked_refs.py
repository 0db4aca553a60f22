"""The refs of memory_get and memory_delete are checked once, in core: a single key folds into
the keys, nothing at all is refused per tool, and one limit (limits.max_refs) bounds them."""

from __future__ import annotations

import pytest

from service.config import load_settings
from service.core.refs import asked_refs
from service.errors import InvalidParameter

LIMITS = load_settings(limits={"max_refs": 2000}).limits


def test_a_single_key_is_folded_into_the_keys_after_them() -> None:
    assert asked_refs(LIMITS, "memory_get", ["id-1"], ["k-1"], "k-2") == (["id-1"], ["k-1", "k-2"])


@pytest.mark.parametrize(
    ("tool", "message"),
    [
        ("memory_get", "memory_get needs 'ids', 'keys' or 'key'"),
        ("memory_delete", "memory_delete needs 'ids' or 'keys'"),
    ],
)
def test_asking_for_nothing_is_refused_naming_what_the_tool_takes(tool: str, message: str) -> None:
    with pytest.raises(InvalidParameter) as caught:
        asked_refs(LIMITS, tool, [], [], None)
    assert caught.value.message == message


def test_max_refs_alone_bounds_ids_and_keys_together() -> None:
    ids = [f"id-{n}" for n in range(1500)]
    keys = [f"k-{n}" for n in range(500)]
    assert asked_refs(LIMITS, "memory_get", ids, keys) == (ids, keys)  # 2,000: at the limit
    with pytest.raises(InvalidParameter) as caught:
        asked_refs(LIMITS, "memory_delete", ids, [*keys, "one-more"])
    assert caught.value.message == (
        "Invalid ids/keys value: 2001 given; at most 2000 (limits.max_refs) per call"
    )
