"""The typed shapes of what the use cases return (docs/contract.md §1, §4, §5): views of
memories and links, and each tool's success payload."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict


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


class SimilarMemory(TypedDict):
    id: str
    key: str
    score: float


class SaveResult(TypedDict):
    success: bool
    memory: MemoryView
    created: bool
    similar: list[SimilarMemory]


class GetResult(TypedDict):
    success: bool
    memories: list[MemoryView]
    missing: list[str]


class GetOneResult(TypedDict):
    """HTTP GET of one memory: `memory`, and memory_get's `memories` and `missing` too."""

    success: bool
    memory: MemoryView
    memories: list[MemoryView]
    missing: list[str]


class LinkResult(TypedDict):
    success: bool
    link: LinkView
    removed: NotRequired[bool]


class DeleteResult(TypedDict):
    success: bool
    deleted: int
    missing: list[str]


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


class FulltextItem(TypedDict):
    id: str
    key: str
    title: str
    summary: str
    excerpt: str
    score: float
    memory_score: float | None
    links: list[LinkView]


class PagedResult(TypedDict):
    success: bool
    results: list[Any]
    total: int
    total_capped: bool
    limit: int
    offset: int


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


class ContextResult(TypedDict):
    success: bool
    results: list[ContextItem]
    total_count: int
    search_mode_used: str
    sort_by: str
    message: str
    warnings: list[str]


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


class TimelineResult(TypedDict):
    success: bool
    anchor: str
    timeline: list[TimelineItem]


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
    indexDetails: dict[str, Any]


class CleanupResult(TypedDict):
    success: bool
    evictedCount: int
    freedBytes: int
    evictedIds: list[str]
