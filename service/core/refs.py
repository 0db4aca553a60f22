"""The refs one memory_get or memory_delete names: ids and keys (a single `key` folded in), at
least one, and at most `limits.max_refs` together."""

from __future__ import annotations

from collections.abc import Sequence

from service.config import LimitsSettings
from service.errors import InvalidParameter


def asked_refs(
    limits: LimitsSettings,
    tool: str,
    ids: Sequence[str],
    keys: Sequence[str],
    key: str | None = None,
) -> tuple[list[str], list[str]]:
    """The ids and keys `tool` is asked for, checked: none at all, or more than max_refs, is
    refused naming what was wrong."""
    ids, keys = list(ids), [*keys, *([key] if key else [])]
    if not ids and not keys:
        names = "'ids', 'keys' or 'key'" if tool == "memory_get" else "'ids' or 'keys'"
        raise InvalidParameter(f"{tool} needs {names}")
    count = len(ids) + len(keys)
    if count > limits.max_refs:
        raise InvalidParameter(
            f"Invalid ids/keys value: {count} given; at most {limits.max_refs} "
            "(limits.max_refs) per call"
        )
    return ids, keys
