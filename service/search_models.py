"""Parameters of memory_search, memory_fulltext_search and retrieve_context (CONTRACT §4, §5),
validated once for both adapters, and the memory filters they share."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from service.errors import InvalidParameter
from service.models import TYPE_PATTERN, MemoryType, Score, Tag
from service.vector_store import VectorFilter

MAX_QUERY_CHARS = 10_000
SORT_BY_VALUES = ("timestamp", "relevance")

Query = Annotated[str, StringConstraints(min_length=1, max_length=MAX_QUERY_CHARS)]
Limit = Annotated[int, Field(ge=1, le=100)]
Offset = Annotated[int, Field(ge=0, le=10_000)]
MaxHops = Annotated[int, Field(ge=1, le=5)]
SearchMode = Literal["hybrid", "bm25", "vector"]
RetrieveMode = Literal["hybrid", "vector", "graph", "keyword", "kv"]
Operator = Literal["AND", "OR"]
TypeFilter = MemoryType | list[MemoryType]


@dataclass(frozen=True)
class MemoryFilters:
    """Filters on memories, applied inside every channel."""

    types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    created_from: datetime | None = None
    created_to: datetime | None = None
    min_score: float | None = None

    def cypher(self) -> dict[str, Any]:
        return {
            "types": list(self.types) or None,
            "tags": list(self.tags),
            "created_from": self.created_from,
            "created_to": self.created_to,
            "min_score": self.min_score,
        }

    def vector(self, namespace: str) -> VectorFilter:
        return VectorFilter(
            namespace=namespace,
            types=self.types,
            tags=self.tags,
            created_from_ms=_ms(self.created_from),
            created_to_ms=_ms(self.created_to),
            min_score=self.min_score,
        )

    def admits(self, memory: dict[str, Any]) -> bool:
        """The same rules in Python, for memories reached over the graph."""
        created: int | None = memory.get("created_ms")
        low, high = _ms(self.created_from), _ms(self.created_to)
        score = memory.get("score")
        return (
            (not self.types or memory.get("type") in self.types)
            and all(tag in (memory.get("tags") or []) for tag in self.tags)
            and (low is None or (created is not None and created >= low))
            and (high is None or (created is not None and created <= high))
            and (self.min_score is None or (50.0 if score is None else score) >= self.min_score)
        )


def _ms(moment: datetime | None) -> int | None:
    if moment is None:
        return None
    delta = moment - datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def checked_filters(types: Sequence[str], tags: Sequence[str]) -> MemoryFilters:
    """Filters from raw query-string values, each checked like the tool parameters."""
    for value in types:
        if not re.fullmatch(TYPE_PATTERN, value):
            raise InvalidParameter(f"Invalid type value: '{value}'. Must match {TYPE_PATTERN}")
    for value in tags:
        if len(value) > 64:
            raise InvalidParameter(f"Invalid tags value: '{value[:20]}…'. Tags are ≤ 64 chars")
    return MemoryFilters(types=tuple(types), tags=tuple(tags))


def type_list(value: str | list[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(dict.fromkeys(value))


def parse_sort_by(value: object) -> str:
    """`timestamp` (default) or `relevance`; anything else is the exact error of seed 004."""
    if value is None:
        return "timestamp"
    if isinstance(value, str) and value in SORT_BY_VALUES:
        return value
    raise InvalidParameter(f"Invalid sort_by value: '{value}'. Must be 'timestamp' or 'relevance'")


def parse_date(name: str, value: str | None, end_of_day: bool) -> datetime | None:
    """ISO date or datetime (UTC when no zone); a plain `date_to` covers its whole day."""
    if value is None or value == "":
        return None
    try:
        if len(value) == 10:
            day = date.fromisoformat(value)
            moment = datetime.combine(day, time.min, tzinfo=UTC)
            return moment + timedelta(days=1, milliseconds=-1) if end_of_day else moment
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidParameter(
            f"Invalid {name} value: '{value}'. Must be an ISO date (2026-01-10) or datetime "
            "(2026-01-10T12:00:00Z)"
        ) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


class RetrieveFilters(BaseModel):
    model_config = ConfigDict(extra="forbid")

    date_from: str | None = None
    date_to: str | None = None
    tags: list[Tag] | None = None
    types: list[MemoryType] | None = None
    min_score: Score | None = None


class RetrieveInput(BaseModel):
    """retrieve_context parameters (CONTRACT §5)."""

    model_config = ConfigDict(extra="forbid")

    query: Query
    search_mode: RetrieveMode = "hybrid"
    sort_by: Any = "timestamp"
    type: TypeFilter | None = None
    filters: RetrieveFilters | None = None
    limit: Limit = 10
    max_hops: MaxHops = 2
    anchors: Annotated[list[str], Field(max_length=100)] | None = None
    sortLinks: Any = None

    def memory_filters(self) -> MemoryFilters:
        extra = self.filters or RetrieveFilters()
        types = type_list(self.type) + tuple(extra.types or ())
        return MemoryFilters(
            types=tuple(dict.fromkeys(types)),
            tags=tuple(dict.fromkeys(extra.tags or ())),
            created_from=parse_date("date_from", extra.date_from, end_of_day=False),
            created_to=parse_date("date_to", extra.date_to, end_of_day=True),
            min_score=extra.min_score,
        )
