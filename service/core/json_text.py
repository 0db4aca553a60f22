"""JSON as the stores can hold it: `json.loads` lets through what Neo4j and the UTF-8 encoders
later fail on (a lone UTF-16 surrogate from a `\\ud800` escape, nesting deep enough to exhaust
the recursion of any encoder), so request bodies and import lines are read with `strict_loads`.
"""

from __future__ import annotations

import json
import math
from typing import Any, cast

# Deeper than any memory needs; json.dumps and the drivers recurse once per level.
METADATA_DEPTH = 64
# A request body or import line: the metadata and what holds it (a batch, its item).
DOCUMENT_DEPTH = METADATA_DEPTH + 8


class NotStorableJson(ValueError):
    """Text that is not JSON, or JSON that no store can hold; `str()` says why."""


def strict_loads(text: str | bytes) -> Any:
    """The JSON value of `text` (bytes: UTF-8 only, where json.loads would also guess UTF-16 or
    UTF-32), or `NotStorableJson`."""
    try:
        value: Any = json.loads(text.decode("utf-8") if isinstance(text, bytes) else text)
    except RecursionError:
        raise NotStorableJson(f"nested deeper than {DOCUMENT_DEPTH} levels") from None
    except ValueError as exc:  # UnicodeDecodeError is one
        raise NotStorableJson(str(exc)) from None
    if (problem := storable_problem(value, DOCUMENT_DEPTH)) is not None:
        raise NotStorableJson(problem)
    return value


def storable_problem(value: Any, max_depth: int) -> str | None:
    """Why a parsed JSON value cannot be stored (a lone surrogate in a string or a name, NaN or
    Infinity, nesting deeper than `max_depth`), or None. Iterative: any depth is safe."""
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict | list) and depth > max_depth:
            return f"nested deeper than {max_depth} levels"
        if isinstance(item, dict):
            for name, inner in cast(dict[Any, Any], item).items():
                if _lone_surrogate(str(name)):
                    return "a name holds a lone UTF-16 surrogate"
                pending.append((inner, depth + 1))
        elif isinstance(item, list):
            pending.extend((inner, depth + 1) for inner in cast(list[Any], item))
        elif isinstance(item, str) and _lone_surrogate(item):
            return "a string holds a lone UTF-16 surrogate"
        elif isinstance(item, float) and not math.isfinite(item):
            return "NaN and Infinity are not JSON numbers"
    return None


def _lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
