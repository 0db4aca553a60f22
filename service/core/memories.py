"""Use cases on memories: save, update, get, link and delete, one namespace at a time.

Writes go to Neo4j first (vector marked pending), then Qdrant, then the pending mark is
cleared; `service.core.upkeep.reconcile` finishes whatever a crash left between the two.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from service.config import Settings
from service.core.hydration import LinkFilter, MemoryReader, views_in_order
from service.core.models import (
    LinkSpec,
    SaveInput,
    UpdateInput,
    link_view,
    now_utc,
)
from service.core.refs import asked_refs
from service.core.results import (
    DeleteResult,
    GetOneResult,
    GetResult,
    LinkResult,
    MemoryView,
    RecentMemory,
    SaveResult,
)
from service.core.stores import Stores
from service.core.switch import require_enabled
from service.core.upkeep.lifecycle import Lifecycle, remove_memories
from service.core.write.committed import CommittedWork
from service.core.write.save_plan import (
    link_rows,
)
from service.core.write.saving import MemorySaver
from service.errors import (
    NotFound,
)
from service.stores.link_graph import GraphWrite

log = logging.getLogger(__name__)


class MemoryService:
    """Save, get, link and delete memories in one namespace at a time."""

    def __init__(self, settings: Settings, stores: Stores) -> None:
        self.settings = settings
        self.stores = stores
        self.reader = MemoryReader(stores.graph)
        self.committed = CommittedWork()
        self.lifecycle = Lifecycle(settings.memory, stores, self.reader, self.committed)
        self.saver = MemorySaver(
            settings,
            stores,
            cleanup=lambda namespace, keep: self.lifecycle.cleanup(namespace, keep=keep),
            committed=self.committed,
        )

    async def close(self) -> None:
        """Finish the committed writes of cancelled requests, then write what saves left
        queued (the synced marks of their vectors)."""
        await self.committed.close()
        await self.saver.marks.close()

    def require_enabled(self) -> None:
        require_enabled(self.settings)

    # -- save -----------------------------------------------------------------------------

    async def save(self, namespace: str, data: SaveInput) -> SaveResult:
        """Upsert by (namespace, key) or id; vectorised and indexed before it returns."""
        self.require_enabled()
        return await self.saver.save(namespace, data)

    async def update(self, namespace: str, ref: str, changes: UpdateInput) -> SaveResult:
        """Partial update of one memory (id or key), atomic: unset fields keep the values stored
        when it runs; a new content without a new summary re-derives the summary."""
        self.require_enabled()
        given = changes.model_dump(exclude_unset=True)
        return await self.saver.update(namespace, ref, lambda current: merged(current, given))

    # -- get ------------------------------------------------------------------------------

    async def get(
        self,
        namespace: str,
        ids: Sequence[str] = (),
        keys: Sequence[str] = (),
        sort: bool = True,
        link_filter: LinkFilter | None = None,
        key: str | None = None,
    ) -> GetResult:
        """Full memories by id or key (`key`: one more key), in the order asked; updates access
        tracking."""
        self.require_enabled()
        ids, keys = asked_refs(self.settings.limits, "memory_get", ids, keys, key)
        rows = await self.stores.graph.write(
            "memory_get", ids=list(ids), keys=list(keys), namespace=namespace, now=now_utc()
        )
        resolved = {ref: row["memory"]["id"] for row in rows for ref in row["refs"]}
        wanted, missing = in_order_asked([*ids, *keys], resolved)
        memories = views_in_order(rows, wanted, sort, link_filter)
        return {"success": True, "memories": memories, "missing": missing}

    async def recent(self, namespace: str, limit: int) -> list[RecentMemory]:
        """The namespace's `limit` most recent memories (newest first): key, title, summary."""
        self.require_enabled()
        rows = await self.stores.graph.read("memory_recent", namespace=namespace, limit=limit)
        return [
            {
                "key": row["key"],
                "title": row["title"] or "",
                "summary": row["summary"] or "",
                "type": row["type"],
            }
            for row in rows
        ]

    async def get_one(self, namespace: str, ref: str, sort: bool = True) -> GetOneResult:
        """One memory by id or key (HTTP GET); `NotFound` when missing."""
        result = await self.get(namespace, ids=[ref], keys=[ref], sort=sort)
        if not result["memories"]:
            raise NotFound(f"Memory not found: {ref}")
        memory = result["memories"][0]
        return {"success": True, "memory": memory, "memories": [memory], "missing": []}

    # -- link -----------------------------------------------------------------------------

    async def link(
        self,
        namespace: str,
        source: str,
        target: str,
        weight: float = 0.5,
        link_type: str = "related",
        term: str | None = None,
        remove: bool = False,
    ) -> LinkResult:
        """Create, update (weight, term) or remove one LINK; returns the link."""
        self.require_enabled()
        resolved = await self.reader.resolve(namespace, ids=[source, target], keys=[source, target])
        missing = [ref for ref in dict.fromkeys([source, target]) if ref not in resolved]
        if missing:
            raise NotFound(f"Memory not found: {', '.join(missing)}")
        source_id, target_id = resolved[source], resolved[target]
        rows = await self.stores.graph.read(
            "link_get", source_id=source_id, target_id=target_id, type=link_type
        )
        if remove:
            if not rows or rows[0]["link"]["weight"] is None:  # none, or deleted while read
                raise NotFound(f"No '{link_type}' link from {source} to {target}")
            await self.stores.graph.write(
                "link_delete",
                namespace=namespace,
                source_id=source_id,
                target_id=target_id,
                type=link_type,
            )
            return {"success": True, "removed": True, "link": link_view(rows[0]["link"])}
        spec = LinkSpec(id=target_id, weight=weight, type=link_type, term=term)
        linked = await self.stores.graph.write(
            "link_upsert",
            source_id=source_id,
            namespace=namespace,
            now=now_utc(),
            links=link_rows([spec]),
        )
        if not linked or linked[0]["missing"]:  # deleted since it was resolved
            raise NotFound(f"Memory not found: {target if linked else source}")
        written = GraphWrite.of_links(linked[0], source_id)
        self.stores.graph.link_graphs.advance(namespace, written)
        rows = await self.stores.graph.read(
            "link_get", source_id=source_id, target_id=target_id, type=link_type
        )
        if not rows or rows[0]["link"]["weight"] is None:  # deleted since (read without it)
            raise NotFound(f"No '{link_type}' link from {source} to {target}")
        return {"success": True, "link": link_view(rows[0]["link"])}

    # -- delete ---------------------------------------------------------------------------

    async def delete(
        self, namespace: str, ids: Sequence[str] = (), keys: Sequence[str] = ()
    ) -> DeleteResult:
        """Delete memories with their links and vectors; unknown refs are reported missing."""
        self.require_enabled()
        ids, keys = asked_refs(self.settings.limits, "memory_delete", ids, keys)
        resolved = await self.reader.resolve(namespace, ids=ids, keys=keys)
        wanted, missing = in_order_asked([*ids, *keys], resolved)
        rows = await remove_memories(self.stores, self.committed, namespace, wanted)
        deleted = [row["id"] for row in rows]
        return {"success": True, "deleted": len(deleted), "missing": missing}


def in_order_asked(
    asked: Sequence[str], resolved: Mapping[str, str]
) -> tuple[list[str], list[str]]:
    """Ids of the refs that resolved (in the order asked, once each) and the refs that did not."""
    missing = [ref for ref in dict.fromkeys(asked) if ref not in resolved]
    wanted = list(dict.fromkeys(resolved[ref] for ref in asked if ref in resolved))
    return wanted, missing


KEPT_FIELDS = (
    "content",
    "title",
    "type",
    "key",
    "summary",
    "tags",
    "score",
    "metadata",
    "session_id",
)


def merged(current: MemoryView, given: dict[str, Any]) -> SaveInput:
    """The save a partial update makes of the stored memory `current` and the fields `given`."""
    fields: dict[str, Any] = {name: current[name] for name in KEPT_FIELDS}
    if "content" in given and "summary" not in given:
        fields["summary"] = None
    fields.update(given)
    fields["links"] = given.get("links") or []
    fields["supersedes"] = given.get("supersedes") or []
    fields["id"] = current["id"]
    return SaveInput.model_validate(fields)
