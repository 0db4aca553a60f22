"""Neo4j values as plain Python: what `GraphStore` returns of every row."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, cast

from neo4j import Record
from neo4j import time as neo4j_time


def plain_row(record: Record) -> dict[str, Any]:
    """A record as a dict of plain values."""
    pairs: list[tuple[str, Any]] = cast(Any, record).items()
    return {key: value if type(value) in _SCALARS else plain(value) for key, value in pairs}


def plain(value: Any) -> Any:
    """Neo4j values to plain Python: temporal types become `datetime` in `datetime.UTC`, an
    offset, as stored (the driver's own UTC is a named zone, and Neo4j never finds a datetime
    with a zone equal to one with an offset: a cursor read back would skip its ties). Scalars
    are tested before any call: a hydration's rows hold hundreds."""
    kind: type[Any] = type(cast(object, value))
    if kind is list:
        items = cast(list[Any], value)
        if all(type(v) in _SCALARS for v in items):
            return items
        return [v if type(v) in _SCALARS else plain(v) for v in items]
    if kind is dict:
        fields = cast(dict[str, Any], value).items()
        return {k: v if type(v) in _SCALARS else plain(v) for k, v in fields}
    if isinstance(value, neo4j_time.DateTime):
        native: datetime = value.to_native()
        return native.astimezone(UTC)
    return value


_SCALARS = frozenset({str, int, float, bool, type(None)})
