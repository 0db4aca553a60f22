"""The memory filters (types, tags, creation dates, min_score, superseded) described once, below
every layer: Cypher parameters, payload conditions each vector engine builds on, a Python check."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from typing import Any, cast

MISSING_SCORE = 50.0  # an unknown score counts as this: in the filters and in link sorting
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Equals:
    """The payload field holds `value` (a list field: as one of its items)."""

    field: str
    value: str | int


@dataclass(frozen=True)
class AnyOf:
    """The payload field holds one of `values`."""

    field: str
    values: tuple[str, ...]


@dataclass(frozen=True)
class Between:
    """The payload field is a number within the bounds, inclusive (None: open)."""

    field: str
    gte: float | None = None
    lte: float | None = None


Condition = Equals | AnyOf | Between


@dataclass(frozen=True)
class Conditions:
    """Payload conditions, engine-neutral: all of `must` and none of `must_not` hold."""

    must: tuple[Condition, ...]
    must_not: tuple[Condition, ...] = ()

    def hold(self, payload: Mapping[str, Any]) -> bool:
        return all(holds(c, payload) for c in self.must) and not any(
            holds(c, payload) for c in self.must_not
        )


def holds(condition: Condition, payload: Mapping[str, Any]) -> bool:
    """One condition as Qdrant reads it: a list field matches when one of its items does, a
    missing field matches nothing."""
    value = payload.get(condition.field)
    match condition:
        case Equals():
            return condition.value in _items(value)
        case AnyOf():
            return any(item in condition.values for item in _items(value))
        case Between(gte=gte, lte=lte):
            return (
                isinstance(value, int | float)
                and (gte is None or value >= gte)
                and (lte is None or value <= lte)
            )


def _items(value: object) -> list[Any]:
    return cast(list[Any], value) if isinstance(value, list) else [value]


def filter_fields(
    memory_type: str | None,
    tags: Sequence[str],
    created_ms: int | None,
    score: float | None,
    superseded: bool,
) -> dict[str, Any]:
    """The fields the filters read, as a vector payload holds them: an unknown score as
    MISSING_SCORE, `superseded` as 0 or 1 (Qdrant Edge 0.9 matches no boolean value: measured)."""
    return {
        "type": memory_type,
        "tags": list(tags),
        "created_at": created_ms,
        "score": MISSING_SCORE if score is None else float(score),
        "superseded": int(superseded),
    }


@dataclass(frozen=True)
class MemoryFilters:
    """Filters on memories, applied inside every channel: in Cypher by
    cypher/fragments/memory_filter.cypher, in each engine from `conditions`, and by `admits`."""

    types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    created_from: datetime | None = None
    created_to: datetime | None = None
    min_score: float | None = None
    include_superseded: bool = False

    @property
    def narrows(self) -> bool:
        """Whether a filter beyond superseded-or-not applies (type, tags, time, score)."""
        dated = self.created_from is not None or self.created_to is not None
        return bool(self.types or self.tags or dated or self.min_score is not None)

    def cypher(self) -> dict[str, Any]:
        """The parameters of cypher/fragments/memory_filter.cypher."""
        return {
            "include_superseded": self.include_superseded,
            "types": list(self.types) or None,
            "tags": list(self.tags),
            "created_from": self.created_from,
            "created_to": self.created_to,
            "min_score": self.min_score,
            "missing_score": MISSING_SCORE,
        }

    @cached_property
    def conditions(self) -> Conditions:
        """The filters over the payload of `filter_fields` (creation times in whole ms)."""
        must: list[Condition] = []
        if self.types:
            must.append(AnyOf("type", self.types))
        must.extend(Equals("tags", tag) for tag in self.tags)
        if self.created_from is not None or self.created_to is not None:
            must.append(
                Between("created_at", first_ms(self.created_from), last_ms(self.created_to))
            )
        if self.min_score is not None:
            must.append(Between("score", gte=float(self.min_score)))
        must_not = () if self.include_superseded else (Equals("superseded", 1),)
        return Conditions(tuple(must), must_not)

    def admits(self, memory: Mapping[str, Any]) -> bool:
        """The same rules for a memory the graph walk reached (type, tags, score, created_ms,
        superseded)."""
        return self.conditions.hold(
            filter_fields(
                memory.get("type"),
                memory.get("tags") or (),
                memory.get("created_ms"),
                memory.get("score"),
                bool(memory.get("superseded")),
            )
        )


def first_ms(moment: datetime | None) -> float | None:
    """The first whole millisecond (since the epoch) at or after `moment`: a creation time, in
    whole ms, is at or after `moment` exactly when its ms are at or after this."""
    return None if moment is None else float(-(-epoch_us(moment) // 1000))


def last_ms(moment: datetime | None) -> float | None:
    """The last whole millisecond (since the epoch) at or before `moment`."""
    return None if moment is None else float(epoch_us(moment) // 1000)


def epoch_us(moment: datetime) -> int:
    """Microseconds since the epoch, exactly (a float timestamp rounds far dates)."""
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
