"""Parameters of memory_search, memory_fulltext_search and retrieve_context (contract §4, §5),
validated once for both adapters, each giving the memory filters of service/filters.py."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from service.core.inputs import ToolInput
from service.core.models import TYPE_PATTERN, MemoryType, Score, Tag
from service.core.scalars import Flag, NotAFlag
from service.core.sorting import SortLinksParam
from service.errors import InvalidParameter
from service.filters import MemoryFilters

MAX_QUERY_CHARS = 10_000
SORT_BY_VALUES = ("timestamp", "relevance")

Query = Annotated[str, StringConstraints(min_length=1, max_length=MAX_QUERY_CHARS)]
Limit = Annotated[int, Field(ge=1, le=100), NotAFlag]
Offset = Annotated[int, Field(ge=0, le=10_000), NotAFlag]
MaxHops = Annotated[int, Field(ge=1, le=5), NotAFlag]
SearchMode = Literal["hybrid", "bm25", "vector"]
RetrieveMode = Literal["hybrid", "vector", "graph", "keyword", "kv"]
Operator = Literal["AND", "OR"]
TypeFilter = MemoryType | list[MemoryType]

# Parameters described once: the MCP schemas and OpenAPI both read these.
QueryParam = Annotated[
    Query, Field(description="What to recall (1–10,000 chars).", examples=["OAuth2 JWT"])
]
SearchQueryParam = Annotated[
    Query, Field(description="What to search for (1–10,000 chars).", examples=["auth bug"])
]
SearchModeParam = Annotated[
    SearchMode,
    Field(description="hybrid (BM25 + vector, RRF k=60), bm25 or vector.", examples=["hybrid"]),
]
RetrieveModeParam = Annotated[
    RetrieveMode,
    Field(
        description="hybrid (all channels fused), vector, graph, keyword or kv.",
        examples=["hybrid"],
    ),
]
SortByParam = Annotated[
    Any,
    Field(
        description="timestamp (newest first, default) or relevance (score desc).",
        json_schema_extra={
            "type": "string",
            "enum": ["timestamp", "relevance"],
            "examples": ["relevance"],
        },
    ),
]
TypeFilterParam = Annotated[
    TypeFilter | None,
    Field(description="Only memories of this type (or types).", examples=["decision"]),
]
TagsFilterParam = Annotated[
    list[Tag] | None, Field(description="Only memories with all these tags.", examples=[["arch"]])
]
LimitParam = Annotated[Limit, Field(description="Maximum results (1–100).", examples=[10])]
OffsetParam = Annotated[Offset, Field(description="Results to skip (paging).", examples=[0])]
MaxHopsParam = Annotated[MaxHops, Field(description="Graph depth (1–5).", examples=[2])]
AnchorsParam = Annotated[
    list[str] | None,
    Field(
        max_length=100,
        description="Memory ids or keys to start the graph from.",
        examples=[["decision:use-sql-js:1a2b3c4d"]],
    ),
]
KeywordsParam = Annotated[
    list[str] | str,
    Field(
        description="Terms to find: a list, or one comma-separated string. Matched as "
        "literal terms (no query syntax).",
        examples=[["neo4j", "fulltext"], "neo4j, fulltext"],
    ),
]
IncludeSupersededParam = Annotated[
    Flag,
    Field(
        description="Also return memories superseded by a newer one (false: left out).",
        examples=[False],
    ),
]
OperatorParam = Annotated[
    Operator, Field(description="OR (any keyword, default) or AND (all keywords).", examples=["OR"])
]


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
        return parsed.astimezone(UTC) if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    except (ValueError, OverflowError):  # overflow: UTC cannot hold it (0001-01-01T00:00+14:00)
        raise InvalidParameter(
            f"Invalid {name} value: '{value}'. Must be an ISO date (2026-01-10) or datetime "
            "(2026-01-10T12:00:00Z) within the years 1-9999 in UTC"
        ) from None


class RetrieveFilters(BaseModel):
    """date_from/date_to (ISO, inclusive, on created_at), tags (all required), types, min_score
    (memory importance; unknown counts as 50)."""

    model_config = ConfigDict(extra="forbid")

    date_from: str | None = None
    date_to: str | None = None
    tags: list[Tag] | None = None
    types: list[MemoryType] | None = None
    min_score: Score | None = None


RetrieveFiltersParam = Annotated[
    RetrieveFilters | None,
    Field(
        description="date_from/date_to (ISO, inclusive, on created_at), tags (all required), "
        "types, min_score (memory importance; unknown counts as 50).",
        examples=[{"date_from": "2026-11-01", "tags": ["arch"], "min_score": 50}],
    ),
]


class RetrieveInput(ToolInput):
    """retrieve_context parameters (docs/contract.md §5)."""

    model_config = ConfigDict(extra="forbid")

    query: QueryParam
    search_mode: RetrieveModeParam = "hybrid"
    sort_by: SortByParam = "timestamp"
    type: TypeFilterParam = None
    filters: RetrieveFiltersParam = None
    limit: LimitParam = 10
    max_hops: MaxHopsParam = 2
    anchors: AnchorsParam = None
    sortLinks: SortLinksParam = True
    include_superseded: IncludeSupersededParam = False

    def memory_filters(self) -> MemoryFilters:
        extra = self.filters or RetrieveFilters()
        types = type_list(self.type) + tuple(extra.types or ())
        return MemoryFilters(
            types=tuple(dict.fromkeys(types)),
            tags=tuple(dict.fromkeys(extra.tags or ())),
            created_from=parse_date("date_from", extra.date_from, end_of_day=False),
            created_to=parse_date("date_to", extra.date_to, end_of_day=True),
            min_score=extra.min_score,
            include_superseded=self.include_superseded,
        )


class SearchInput(ToolInput):
    """memory_search parameters (docs/contract.md §4)."""

    model_config = ConfigDict(extra="forbid")

    query: SearchQueryParam
    mode: SearchModeParam = "hybrid"
    type: TypeFilterParam = None
    tags: TagsFilterParam = None
    limit: LimitParam = 10
    offset: OffsetParam = 0
    sortLinks: SortLinksParam = True
    include_superseded: IncludeSupersededParam = False

    def memory_filters(self) -> MemoryFilters:
        return MemoryFilters(
            types=type_list(self.type),
            tags=tuple(dict.fromkeys(self.tags or ())),
            include_superseded=self.include_superseded,
        )


class FulltextInput(ToolInput):
    """memory_fulltext_search parameters (docs/contract.md §4)."""

    model_config = ConfigDict(extra="forbid")

    keywords: KeywordsParam
    operator: OperatorParam = "OR"
    type: TypeFilterParam = None
    limit: LimitParam = 10
    offset: OffsetParam = 0
    sortLinks: SortLinksParam = True
    include_superseded: IncludeSupersededParam = False

    def memory_filters(self) -> MemoryFilters:
        return MemoryFilters(types=type_list(self.type), include_superseded=self.include_superseded)
