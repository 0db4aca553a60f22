"""The lifecycle of a namespace: its timeline, its statistics (from maintained counters), and
LRU cleanup within `memory.max_size_bytes`; also the one way memories are removed."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import Field

from service.config import MemorySettings
from service.core.hydration import MemoryReader
from service.core.models import iso_ms, now_utc
from service.core.results import (
    CleanupResult,
    MemoryView,
    StatsResult,
    TimelineItem,
    TimelineResult,
)
from service.core.scalars import Flag, NotAFlag
from service.core.stores import Stores
from service.core.upkeep.context_index import Backlog
from service.core.write.committed import CommittedWork
from service.core.write.supersede import flag_vectors
from service.errors import InvalidParameter, NotFound
from service.stores.graph_store import GraphStore, Row
from service.stores.vector_store import VectorStore

LINK_BYTES = 64  # docs/contract.md §4 memory_stats: each link's share of dbSizeBytes
LOW_WATERMARK = 0.85  # cleanup evicts down to this share of max_size_bytes
PAGE = 500
_EPOCH = datetime(1, 1, 1, tzinfo=UTC)

Window = Annotated[int, Field(ge=1, le=50), NotAFlag]
WINDOW_DESCRIPTION = "Memories to show on each side of the anchor (1–50)."
FORCE_DESCRIPTION = "Evict down to 85% of the budget even when under it."
DRY_RUN_DESCRIPTION = "Report what would be evicted without deleting anything."
WindowParam = Annotated[Window, Field(description=WINDOW_DESCRIPTION, examples=[5])]
ForceParam = Annotated[Flag, Field(description=FORCE_DESCRIPTION, examples=[False])]
DryRunParam = Annotated[Flag, Field(description=DRY_RUN_DESCRIPTION, examples=[True])]
AnchorParam = Annotated[
    str,
    Field(
        min_length=1,
        description="The anchor memory's id or key.",
        examples=["decision:use-sql-js:1a2b3c4d"],
    ),
]


async def remove_memories(
    stores: Stores,
    committed: CommittedWork,
    namespace: str,
    ids: Sequence[str],
    seen: Mapping[str, list[int]] | None = None,
) -> list[Row]:
    """Delete memories (links, both vectors, counters; neighbours' context marked pending;
    memories they superseded current again); with `seen` (id -> [accessed ms, updated ms] as
    read), only those not read or saved since. Rows: `id, key, size_bytes` and `links`, the
    links removed with the whole set. Once Neo4j committed, the rest runs in `committed`."""
    rows = await stores.graph.write(
        "memory_delete", ids=list(ids), namespace=namespace, now=now_utc(), seen=seen
    )
    await committed.finish(
        _finish_removal(stores.graph, stores.vectors, stores.context_vectors, rows)
    )
    return rows


async def _finish_removal(
    graph: GraphStore, vectors: VectorStore, context_vectors: VectorStore | None, rows: list[Row]
) -> None:
    """Qdrant after Neo4j: both vectors deleted, the tombstones cleared, the superseded flags of
    the memories made current again cleared."""
    deleted = [row["id"] for row in rows]
    await vectors.delete(deleted)
    if context_vectors is not None:
        await context_vectors.delete(deleted)
    await graph.write("tombstones_clear", ids=deleted)
    restored = [memory for row in rows for memory in row["restored"]]
    await flag_vectors(graph, [vectors, context_vectors], restored, superseded=False)


def freed_bytes(rows: Sequence[Row]) -> int:
    """What a `remove_memories` call freed, in dbSizeBytes."""
    return sum(int(row["size_bytes"]) for row in rows) + LINK_BYTES * int(
        rows[0]["links"] if rows else 0
    )


def index_health(memories: int, vectors: int, fulltext_state: str) -> str:
    """good (counts equal, fulltext ONLINE) | degraded (< 10% off) | needs-rebuild."""
    if fulltext_state not in ("ONLINE", "POPULATING"):
        return "needs-rebuild"
    if memories == vectors and fulltext_state == "ONLINE":
        return "good"
    if abs(memories - vectors) < 0.1 * max(memories, 1):
        return "degraded"
    return "needs-rebuild"


def timeline_items(
    anchor: str, before: Sequence[str], after: Sequence[str], views: dict[str, MemoryView]
) -> list[TimelineItem]:
    """Oldest first: `before` (nearest first, as stored) reversed, the anchor, then `after`."""
    placed = [
        *((memory_id, "before", len(before) - i) for i, memory_id in enumerate(reversed(before))),
        (anchor, "anchor", 0),
        *((memory_id, "after", i + 1) for i, memory_id in enumerate(after)),
    ]
    items: list[TimelineItem] = []
    for memory_id, position, distance in placed:
        view = views.get(memory_id)
        if view is None:  # deleted between the two reads
            continue
        items.append(
            {
                "id": view["id"],
                "key": view["key"],
                "title": view["title"],
                "summary": view["summary"],
                "type": view["type"],
                "createdAt": view["created_at"],
                "position": position,
                "distanceFromAnchor": distance,
                "links": view["links"],
            }
        )
    return items


class Lifecycle:
    """Timeline, stats and cleanup of one namespace at a time."""

    def __init__(
        self,
        memory: MemorySettings,
        stores: Stores,
        reader: MemoryReader,
        committed: CommittedWork,
    ) -> None:
        self.memory = memory
        self.stores = stores
        self.reader = reader
        self.committed = committed

    async def timeline(
        self, namespace: str, ref: str, window: int = 5, sort: bool = True
    ) -> TimelineResult:
        """Up to `window` memories before and after the anchor (id or key), oldest first."""
        if not 1 <= window <= 50:
            raise InvalidParameter(f"Invalid window value: {window}. Must be between 1 and 50")
        resolved = await self.reader.resolve(namespace, ids=[ref], keys=[ref])
        rows = (
            await self.stores.graph.read(
                "memory_timeline", anchor_id=resolved[ref], namespace=namespace, window=window
            )
            if ref in resolved
            else []
        )
        if not rows:
            raise NotFound(f"Memory not found: {ref}")
        anchor, before, after = rows[0]["anchor"], rows[0]["before"], rows[0]["after"]
        views = await self.reader.hydrate(namespace, [*before, anchor, *after], sort)
        if anchor not in views:
            raise NotFound(f"Memory not found: {ref}")
        return {
            "success": True,
            "anchor": anchor,
            "timeline": timeline_items(anchor, before, after, views),
        }

    async def stats(self, namespace: str) -> StatsResult:
        """Every memory_stats figure from counters and index seeks (no scan of memories). The
        vectors are counted by the engine's payload index; only when that figure differs from
        the memories are the points counted (their exact number tells what is missing)."""
        rows, vector_count, (fulltext_index, fulltext), waiting = await asyncio.gather(
            self.stores.graph.read("namespace_stats", namespace=namespace),
            self.stores.vectors.count(namespace, exact=False),
            self.stores.graph.keyword_index_state(namespace),
            self.stores.graph.read(
                "context_backlog", namespace=namespace, vector_store=self.stores.vectors.store_id
            ),
        )
        backlog = Backlog.of(waiting[0])
        row = rows[0]
        memories, links = int(row["memories"]), int(row["links"])
        if vector_count != memories:
            vector_count = await self.stores.vectors.count(namespace)
        size = int(row["size_bytes"]) + LINK_BYTES * links
        limit = self.memory.max_size_bytes
        return {
            "success": True,
            "dbSizeBytes": size,
            "memoryCount": memories,
            "linkCount": links,
            "sessionCount": int(row["sessions"]),
            "oldestMemory": iso_ms(row["oldest"]),
            "newestMemory": iso_ms(row["newest"]),
            "maxSizeBytes": limit,
            "usagePercent": min(100.0, round(size * 100 / limit, 2)),
            "indexHealth": index_health(memories, vector_count, fulltext),
            "indexDetails": {
                "memoryCount": memories,
                "vectorCount": vector_count,
                "missingVectors": memories - vector_count,
                "vectorEngine": self.stores.vectors.engine,
                "fulltextIndex": fulltext_index,
                "fulltextState": fulltext,
                "contextPending": backlog.pending,
                "contextApproximate": backlog.approximate,
                "contextOldestWaitS": backlog.oldest_wait_s,
            },
        }

    async def cleanup(
        self,
        namespace: str,
        force: bool = False,
        dry_run: bool = False,
        keep: Sequence[str] = (),
    ) -> CleanupResult:
        """LRU eviction (accessed_at, then created_at) down to 85% of the budget, when over
        it or when forced; protected types and `keep` are never evicted."""
        rows = await self.stores.graph.read("namespace_stats", namespace=namespace)
        size = int(rows[0]["size_bytes"]) + LINK_BYTES * int(rows[0]["links"])
        limit = self.memory.max_size_bytes
        target = int(limit * LOW_WATERMARK)
        if size <= target or (size <= limit and not force):
            return {"success": True, "evictedCount": 0, "freedBytes": 0, "evictedIds": []}
        seen, planned = await self._choose(namespace, size - target, keep)
        chosen = list(seen)
        if dry_run:
            return {
                "success": True,
                "evictedCount": len(chosen),
                "freedBytes": planned,
                "evictedIds": chosen,
            }
        freed, evicted = 0, list[str]()
        for start in range(0, len(chosen), PAGE):
            removed = await remove_memories(
                self.stores,
                self.committed,
                namespace,
                chosen[start : start + PAGE],
                seen,  # a memory read or saved since it was chosen stays
            )
            freed += freed_bytes(removed)
            evicted.extend(row["id"] for row in removed)
        order = {memory_id: i for i, memory_id in enumerate(chosen)}
        evicted.sort(key=order.__getitem__)
        return {
            "success": True,
            "evictedCount": len(evicted),
            "freedBytes": freed,
            "evictedIds": evicted,
        }

    async def _choose(
        self, namespace: str, needed: int, keep: Sequence[str]
    ) -> tuple[dict[str, list[int]], int]:
        """The LRU prefix of evictable memories that frees at least `needed` bytes (or all of
        them), in order, each with when it was last read and saved; and the bytes it frees
        (each link counted once)."""
        chosen: dict[str, list[int]] = {}
        freed = 0
        cursor: dict[str, Any] = {
            "after_accessed": _EPOCH,
            "after_created": _EPOCH,
            "after_id": "",
        }
        protected = list(self.memory.protected_types)
        while freed < needed:
            rows = await self.stores.graph.read(
                "cleanup_candidates",
                namespace=namespace,
                protected=protected,
                keep=list(keep),
                limit=PAGE,
                **cursor,
            )
            for row in rows:
                links = sum(1 for other in row["others"] if other not in chosen)
                freed += int(row["size_bytes"]) + LINK_BYTES * links
                chosen[row["id"]] = row["seen"]
                if freed >= needed:
                    break
            if len(rows) < PAGE:
                break
            last = rows[-1]
            cursor = {
                "after_accessed": last["accessed_at"],
                "after_created": last["created_at"],
                "after_id": last["id"],
            }
        return chosen, freed
