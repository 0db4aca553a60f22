"""The typed shapes of what the use cases return (docs/contract.md §1, §4, §5, §6): views of
memories and links, and each tool's and route's success payload. The MCP output schemas and the
OpenAPI responses are generated from these, and every MCP answer is validated against its type
(closed: a key the type does not name fails), so the published schema and the answer agree."""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

CLOSED = ConfigDict(extra="forbid")


@with_config(CLOSED)
class LinkView(TypedDict):
    id: str
    key: str
    type: str
    term: str | None
    weight: float
    score: float | None
    combined_score: float
    summary: str | None
    created_at: str | None


@with_config(CLOSED)
class MemoryView(TypedDict):
    id: str
    key: str
    namespace: str
    type: str
    title: str
    summary: str
    content: str
    tags: list[str]
    score: float | None
    metadata: dict[str, Any]
    session_id: str | None
    created_at: str | None
    updated_at: str | None
    accessed_at: str | None
    access_count: int
    superseded_by: str | None
    superseded_at: str | None
    supersedes: list[str]
    links: list[LinkView]


@with_config(CLOSED)
class SimilarMemory(TypedDict):
    id: str
    key: str
    score: float


@with_config(CLOSED)
class SaveResult(TypedDict):
    success: bool
    memory: MemoryView
    created: bool
    similar: list[SimilarMemory]


@with_config(CLOSED)
class RecentMemory(TypedDict):
    key: str
    title: str
    summary: str
    type: str


@with_config(CLOSED)
class GetResult(TypedDict):
    success: bool
    memories: list[MemoryView]
    missing: list[str]


@with_config(CLOSED)
class GetOneResult(TypedDict):
    """HTTP GET of one memory: `memory`, and memory_get's `memories` and `missing` too."""

    success: bool
    memory: MemoryView
    memories: list[MemoryView]
    missing: list[str]


@with_config(CLOSED)
class LinkResult(TypedDict):
    success: bool
    link: LinkView
    removed: NotRequired[bool]


@with_config(CLOSED)
class DeleteResult(TypedDict):
    success: bool
    deleted: int
    missing: list[str]


@with_config(CLOSED)
class SearchItem(TypedDict):
    id: str
    key: str
    title: str
    summary: str
    type: str
    score: float
    matchType: str
    createdAt: str | None
    memory_score: float | None
    links: list[LinkView]


@with_config(CLOSED)
class FulltextItem(TypedDict):
    id: str
    key: str
    title: str
    summary: str
    excerpt: str
    score: float
    memory_score: float | None
    links: list[LinkView]


@with_config(CLOSED)
class SearchResult(TypedDict):
    success: bool
    results: list[SearchItem]
    total: int
    total_capped: bool
    limit: int
    offset: int


@with_config(CLOSED)
class FulltextResult(TypedDict):
    success: bool
    results: list[FulltextItem]
    total: int
    total_capped: bool
    limit: int
    offset: int


@with_config(CLOSED)
class ContextItem(TypedDict):
    id: str
    key: str
    title: str
    summary: str
    content: str
    type: str
    tags: list[str]
    score: float
    source: str
    scores: dict[str, float]
    hop_distance: int | None
    path: list[str] | None
    created_at: str | None
    memory_score: float | None
    links: list[LinkView]


@with_config(CLOSED)
class ContextResult(TypedDict):
    success: bool
    results: list[ContextItem]
    total_count: int
    search_mode_used: str
    sort_by: str
    message: str
    warnings: list[str]


@with_config(CLOSED)
class TimelineItem(TypedDict):
    id: str
    key: str
    title: str
    summary: str
    type: str
    createdAt: str | None
    position: str
    distanceFromAnchor: int
    links: list[LinkView]


@with_config(CLOSED)
class TimelineResult(TypedDict):
    success: bool
    anchor: str
    timeline: list[TimelineItem]


@with_config(CLOSED)
class IndexDetails(TypedDict):
    """memory_stats' raw index figures, and the namespace's context backlog."""

    memoryCount: int
    vectorCount: int
    missingVectors: int
    vectorEngine: str
    fulltextIndex: str
    fulltextState: str
    contextPending: int
    contextApproximate: int
    contextOldestWaitS: float


@with_config(CLOSED)
class StatsResult(TypedDict):
    success: bool
    dbSizeBytes: int
    memoryCount: int
    linkCount: int
    sessionCount: int
    oldestMemory: str | None
    newestMemory: str | None
    maxSizeBytes: int
    usagePercent: float
    indexHealth: str
    indexDetails: IndexDetails


@with_config(CLOSED)
class CleanupResult(TypedDict):
    success: bool
    evictedCount: int
    freedBytes: int
    evictedIds: list[str]


@with_config(CLOSED)
class BatchSaved(TypedDict):
    index: int
    success: Literal[True]
    id: str
    key: str
    created: bool


@with_config(CLOSED)
class BatchRefused(TypedDict):
    """An item of a batch that was refused: the §2 envelope, with the key it gave."""

    index: int
    success: Literal[False]
    error_type: str
    message: str
    error: str
    id: None
    key: str | None


@with_config(CLOSED)
class BatchResult(TypedDict):
    success: bool
    results: list[BatchSaved | BatchRefused]
    saved: int
    failed: int


@with_config(CLOSED)
class ImportCounts(TypedDict):
    created: int
    updated: int
    remapped: int


@with_config(CLOSED)
class ImportLineError(TypedDict):
    line: int
    error_type: str
    message: str


@with_config(CLOSED)
class ImportResult(TypedDict):
    success: bool
    memories: ImportCounts
    links: int
    superseded: int
    failed: int
    complete: bool
    errors: list[ImportLineError]
    errors_listed: int
