"""Use cases on memories: save, get, link, delete, and reconcile of the two stores.

Writes go to Neo4j first (vector marked pending), then Qdrant, then the pending mark is
cleared; `reconcile` finishes whatever a crash left between the two.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from service.config import Settings
from service.embeddings import Embedder
from service.errors import (
    Conflict,
    InvalidParameter,
    MemoryDisabled,
    NotFound,
    PayloadTooLarge,
)
from service.graph_store import GraphStore, Tx
from service.models import (
    LinkSpec,
    SaveInput,
    UpdateInput,
    content_hash,
    derive_key,
    derive_summary,
    embedding_text,
    epoch_ms,
    link_view,
    memory_size_bytes,
    memory_view,
    metadata_json,
    now_utc,
    redact,
    utf8_len,
)
from service.sorting import filter_links, sort_links
from service.vector_store import VectorPoint, VectorStore

log = logging.getLogger(__name__)

RECONCILE_BATCH = 256


@dataclass(frozen=True)
class LinkFilter:
    """Which links a response carries (applied before sorting)."""

    types: tuple[str, ...] = ()
    min_weight: float | None = None


class _Replan(Exception):
    """The memory a save targets changed between planning and writing; plan again."""


@dataclass(frozen=True)
class _SavePlan:
    id: str
    key: str
    created: bool
    created_at: datetime
    fields: dict[str, Any]
    hash: str
    vector_text: str


@dataclass(frozen=True)
class ReconcileReport:
    vectors_written: int
    vectors_deleted: int
    orphans_deleted: int
    missing_vectors: int


class MemoryService:
    """Save, get, link and delete memories in one namespace at a time."""

    def __init__(
        self,
        settings: Settings,
        graph: GraphStore,
        vectors: VectorStore,
        embedder: Embedder,
    ) -> None:
        self.settings = settings
        self.graph = graph
        self.vectors = vectors
        self.embedder = embedder

    def require_enabled(self) -> None:
        if not self.settings.memory.enabled:
            raise MemoryDisabled(
                "Memory system is not enabled. Set memory.enabled=true in "
                f"{self.settings.config_file} or MNEMO_MEMORY__ENABLED=true"
            )

    # -- save -----------------------------------------------------------------------------

    async def save(self, namespace: str, data: SaveInput) -> dict[str, Any]:
        """Upsert by (namespace, key) or id; vectorised and indexed before it returns."""
        self.require_enabled()
        self._check_sizes(data)
        for _ in range(3):
            plan = await self._plan_save(namespace, data)
            vector = (
                await self.embedder.embed([plan.vector_text])
                if plan.hash != plan.fields.get("previous_hash")
                else None
            )
            try:
                pending = await self.graph.transaction(
                    lambda tx, plan=plan: self._write_save(tx, namespace, data.links, plan)
                )
            except _Replan:
                continue
            if pending:
                if vector is None:
                    vector = await self.embedder.embed([plan.vector_text])
                await self.vectors.upsert([self._point(namespace, plan, vector[0])])
                await self.graph.write(
                    "vector_mark_synced", items=[{"id": plan.id, "content_hash": plan.hash}]
                )
            memories = await self._hydrate(namespace, [plan.id], sort=True)
            return {"success": True, "memory": memories[0], "created": plan.created}
        raise Conflict("The memory changed concurrently three times in a row; retry the save")

    async def update(self, namespace: str, ref: str, changes: UpdateInput) -> dict[str, Any]:
        """Partial update of one memory (id or key): unset fields keep their values; a new
        content without a new summary re-derives the summary."""
        self.require_enabled()
        resolved = await self.resolve(namespace, ids=[ref], keys=[ref])
        if ref not in resolved:
            raise NotFound(f"Memory not found: {ref}")
        current = (await self._hydrate(namespace, [resolved[ref]], sort=False))[0]
        given = changes.model_dump(exclude_unset=True)
        merged: dict[str, Any] = {
            name: current[name]
            for name in (
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
        }
        if "content" in given and "summary" not in given:
            merged["summary"] = None
        merged.update(given)
        merged["links"] = given.get("links") or []
        merged["id"] = current["id"]
        return await self.save(namespace, SaveInput.model_validate(merged))

    async def _asked(
        self, namespace: str, ids: Sequence[str], keys: Sequence[str]
    ) -> tuple[list[str], list[str]]:
        """Ids of the refs that exist (in the order asked, once each) and the refs that don't."""
        self._check_batch(ids, keys)
        resolved = await self.resolve(namespace, ids=ids, keys=keys)
        asked = [*ids, *keys]
        missing = [ref for ref in dict.fromkeys(asked) if ref not in resolved]
        wanted = list(dict.fromkeys(resolved[ref] for ref in asked if ref in resolved))
        return wanted, missing

    def _check_batch(self, ids: Sequence[str], keys: Sequence[str]) -> None:
        limit = self.settings.limits.max_batch
        if len(ids) + len(keys) > limit:
            raise InvalidParameter(
                f"Invalid ids/keys value: {len(ids) + len(keys)} references. Must be at most "
                f"{limit} per call"
            )

    def _check_sizes(self, data: SaveInput) -> None:
        limits = self.settings.limits
        size = utf8_len(data.content)
        if size > limits.max_content_bytes:
            raise PayloadTooLarge(
                f"content is {size} bytes; the limit is {limits.max_content_bytes} bytes "
                "(limits.max_content_bytes)"
            )
        meta = utf8_len(metadata_json(data.metadata))
        if meta > limits.max_metadata_bytes:
            raise PayloadTooLarge(
                f"metadata is {meta} bytes of JSON; the limit is {limits.max_metadata_bytes} bytes"
            )
        if len(data.links) > limits.max_links_per_save:
            raise InvalidParameter(
                f"Invalid links value: {len(data.links)} links. Must be at most "
                f"{limits.max_links_per_save} per save"
            )

    async def _plan_save(self, namespace: str, data: SaveInput) -> _SavePlan:
        found = await self.graph.read(
            "memory_find_for_save", id=data.id or "", namespace=namespace, key=data.key or ""
        )
        existing = _existing_target(namespace, data, found[0])
        plan = self._plan(
            namespace,
            data,
            memory_id=existing["id"] if existing else (data.id or str(uuid.uuid4())),
            key=data.key or (existing["key"] if existing else None),
            created_at=existing["created_at"] if existing else now_utc(),
        )
        if existing is None:
            return plan
        plan.fields["previous_hash"] = existing["content_hash"]
        plan.fields["previous_key"] = existing["key"]
        return replace(plan, created=False)

    def _plan(
        self,
        namespace: str,
        data: SaveInput,
        memory_id: str,
        key: str | None,
        created_at: datetime,
    ) -> _SavePlan:
        """The stored fields, vector text and content hash of one memory (pure)."""
        title = redact(data.title)
        content = redact(data.content)
        key = key or derive_key(data.type, title, content, memory_id)
        summary = redact(data.summary) if data.summary is not None else derive_summary(content)
        fields: dict[str, Any] = {
            "namespace": namespace,
            "key": key,
            "type": data.type,
            "title": title,
            "summary": summary,
            "content": content,
            "tags": list(dict.fromkeys(data.tags)),
            "tags_text": " ".join(data.tags),
            "score": data.score,
            "metadata_json": metadata_json(data.metadata),
            "session_id": data.session_id,
            "previous_hash": None,
            "previous_key": None,
        }
        fields["size_bytes"] = memory_size_bytes(fields, self.embedder.dimensions)
        text = embedding_text(title, content)
        payload = {
            "namespace": namespace,
            "type": data.type,
            "tags": fields["tags"],
            "key": key,
            "created_at": epoch_ms(created_at),
            "score": data.score,
        }
        return _SavePlan(
            id=memory_id,
            key=key,
            created=True,
            created_at=created_at,
            fields=fields,
            hash=content_hash(text, payload, self.embedder.model),
            vector_text=text,
        )

    async def bulk_import(
        self,
        namespace: str,
        items: Sequence[SaveInput],
        on_progress: Callable[[int], None] | None = None,
    ) -> dict[str, int]:
        """Upsert many memories by key (batches of 256), then their links by target key.

        The same two-store order as `save`: Neo4j (pending), Qdrant, then synced.
        """
        self.require_enabled()
        for data in items:
            self._check_sizes(data)
        imported = linked = 0
        links: list[dict[str, Any]] = []
        for start in range(0, len(items), RECONCILE_BATCH):
            batch = items[start : start + RECONCILE_BATCH]
            now = now_utc()
            plans = [self._plan(namespace, d, d.id or str(uuid.uuid4()), d.key, now) for d in batch]
            vectors = await self.embedder.embed([plan.vector_text for plan in plans])
            rows = await self.graph.write(
                "memory_bulk_upsert",
                namespace=namespace,
                now=now,
                rows=[_bulk_row(plan) for plan in plans],
            )
            stored = {row["key"]: row for row in rows}
            points = []
            for plan, vector in zip(plans, vectors, strict=True):
                row = stored[plan.key]
                actual = _SavePlan(
                    id=row["id"],
                    key=plan.key,
                    created=plan.created,
                    created_at=plan.created_at,
                    fields=plan.fields,
                    hash=plan.hash,
                    vector_text=plan.vector_text,
                )
                points.append(self._point(namespace, actual, vector))
            await self.vectors.upsert(points)
            await self.graph.write(
                "vector_mark_synced",
                items=[
                    {"id": row["id"], "content_hash": p.hash}
                    for p, row in ((p, stored[p.key]) for p in plans)
                ],
            )
            links.extend(
                {
                    "source": plan.key,
                    "target": spec.target,
                    "type": spec.type,
                    "weight": spec.weight,
                    "term": spec.term,
                }
                for plan, data in zip(plans, batch, strict=True)
                for spec in data.links
            )
            imported += len(plans)
            if on_progress:
                on_progress(imported)
        for start in range(0, len(links), 1000):
            chunk = links[start : start + 1000]
            base = time.time_ns() // 1000 * 1000
            for index, link in enumerate(chunk):
                link["seq"] = base + index
            rows = await self.graph.write(
                "link_bulk_upsert", namespace=namespace, now=now_utc(), links=chunk
            )
            linked += int(rows[0]["linked"]) if rows else 0
        return {"imported": imported, "linked": linked, "unresolved_links": len(links) - linked}

    async def _write_save(
        self, tx: Tx, namespace: str, links: Sequence[LinkSpec], plan: _SavePlan
    ) -> bool:
        found = await tx.run("memory_find_for_save", id=plan.id, namespace=namespace, key=plan.key)
        by_id, by_key = found[0]["by_id"], found[0]["by_key"]
        if (by_id is None) != plan.created or (
            by_id and by_id["key"] != plan.fields["previous_key"]
        ):
            raise _Replan()
        if by_key is not None and by_key["id"] != plan.id:
            raise Conflict(f"Key '{plan.key}' is already used by memory {by_key['id']}")
        fields = {k: v for k, v in plan.fields.items() if not k.startswith("previous_")}
        rows = await tx.run(
            "memory_upsert",
            id=plan.id,
            now=now_utc(),
            created_at=plan.created_at,
            content_hash=plan.hash,
            **fields,
        )
        if links:
            targets = await self._resolve_in(tx, namespace, [link.target for link in links])
            missing = [link.target for link in links if link.target not in targets]
            if missing:
                raise NotFound(f"Link target(s) not found: {', '.join(dict.fromkeys(missing))}")
            await tx.run(
                "link_upsert",
                source_id=plan.id,
                now=now_utc(),
                links=_link_rows([(targets[link.target], link) for link in links]),
            )
        return bool(rows[0]["vector_pending"])

    def _point(self, namespace: str, plan: _SavePlan, vector: Any) -> VectorPoint:
        return VectorPoint(
            id=plan.id,
            vector=vector,
            namespace=namespace,
            type=plan.fields["type"],
            tags=tuple(plan.fields["tags"]),
            key=plan.key,
            created_at_ms=epoch_ms(plan.created_at),
            score=plan.fields["score"],
        )

    # -- get ------------------------------------------------------------------------------

    async def get(
        self,
        namespace: str,
        ids: Sequence[str] = (),
        keys: Sequence[str] = (),
        sort: bool = True,
        link_filter: LinkFilter | None = None,
    ) -> dict[str, Any]:
        """Full memories by id or key, in the order asked; updates access tracking."""
        self.require_enabled()
        wanted, missing = await self._asked(namespace, ids, keys)
        touched, rows = await asyncio.gather(
            self.graph.write("memory_touch", ids=wanted, namespace=namespace, now=now_utc()),
            self.graph.read("memory_hydrate", ids=wanted, namespace=namespace),
        )
        access = {row["id"]: row for row in touched}
        for row in rows:
            tracked = access[row["memory"]["id"]]
            row["memory"]["accessed_at"] = tracked["accessed_at"]
            row["memory"]["access_count"] = tracked["access_count"]
        memories = _views_in_order(rows, wanted, sort, link_filter)
        return {"success": True, "memories": memories, "missing": missing}

    async def get_one(self, namespace: str, ref: str, sort: bool = True) -> dict[str, Any]:
        """One memory by id or key (HTTP GET); `NotFound` when missing."""
        result = await self.get(namespace, ids=[ref], keys=[ref], sort=sort)
        if not result["memories"]:
            raise NotFound(f"Memory not found: {ref}")
        return {"success": True, "memory": result["memories"][0]}

    async def _hydrate(
        self,
        namespace: str,
        ids: Sequence[str],
        sort: bool,
        link_filter: LinkFilter | None = None,
    ) -> list[dict[str, Any]]:
        rows = await self.graph.read("memory_hydrate", ids=list(ids), namespace=namespace)
        return _views_in_order(rows, list(ids), sort, link_filter)

    async def hydrate(
        self,
        namespace: str,
        ids: Sequence[str],
        sort: bool,
        link_filter: LinkFilter | None = None,
    ) -> dict[str, dict[str, Any]]:
        """Full memories (no access tracking) by id, for search results."""
        views = await self._hydrate(namespace, ids, sort, link_filter)
        return {view["id"]: view for view in views}

    async def resolve(
        self, namespace: str, ids: Sequence[str] = (), keys: Sequence[str] = ()
    ) -> dict[str, str]:
        """Ref → memory id for the refs that exist in the namespace."""
        rows = await self.graph.read(
            "memory_resolve_refs", ids=list(ids), keys=list(keys), namespace=namespace
        )
        return {row["ref"]: row["id"] for row in rows}

    async def _resolve_in(self, tx: Tx, namespace: str, refs: Sequence[str]) -> dict[str, str]:
        rows = await tx.run(
            "memory_resolve_refs", ids=list(refs), keys=list(refs), namespace=namespace
        )
        return {row["ref"]: row["id"] for row in rows}

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
    ) -> dict[str, Any]:
        """Create, update (weight, term) or remove one LINK; returns the link."""
        self.require_enabled()
        resolved = await self.resolve(namespace, ids=[source, target], keys=[source, target])
        missing = [ref for ref in dict.fromkeys([source, target]) if ref not in resolved]
        if missing:
            raise NotFound(f"Memory not found: {', '.join(missing)}")
        source_id, target_id = resolved[source], resolved[target]
        rows = await self.graph.read(
            "link_get", source_id=source_id, target_id=target_id, type=link_type
        )
        if remove:
            if not rows:
                raise NotFound(f"No '{link_type}' link from {source} to {target}")
            await self.graph.write(
                "link_delete", source_id=source_id, target_id=target_id, type=link_type
            )
            return {"success": True, "removed": True, "link": link_view(rows[0]["link"])}
        spec = LinkSpec(id=target_id, weight=weight, type=link_type, term=term)
        await self.graph.write(
            "link_upsert", source_id=source_id, now=now_utc(), links=_link_rows([(target_id, spec)])
        )
        rows = await self.graph.read(
            "link_get", source_id=source_id, target_id=target_id, type=link_type
        )
        return {"success": True, "link": link_view(rows[0]["link"])}

    # -- delete ---------------------------------------------------------------------------

    async def delete(
        self, namespace: str, ids: Sequence[str] = (), keys: Sequence[str] = ()
    ) -> dict[str, Any]:
        """Delete memories with their links and vectors; unknown refs are reported missing."""
        self.require_enabled()
        wanted, missing = await self._asked(namespace, ids, keys)
        rows = await self.graph.write(
            "memory_delete", ids=wanted, namespace=namespace, now=now_utc()
        )
        deleted = [row["id"] for row in rows]
        await self.vectors.delete(deleted)
        await self.graph.write("tombstones_clear", ids=deleted)
        return {"success": True, "deleted": len(deleted), "missing": missing}

    # -- reconcile ------------------------------------------------------------------------

    async def reconcile(self, full: bool = False) -> ReconcileReport:
        """Finish pending vector writes and deletes; with `full`, also repair any drift."""
        written = await self._finish_pending_vectors()
        deleted = await self._finish_tombstones()
        orphans = missing = 0
        if full:
            orphans, missing = await self._repair_drift()
            written += await self._finish_pending_vectors()
        return ReconcileReport(written, deleted, orphans, missing)

    async def _finish_pending_vectors(self) -> int:
        written = 0
        while rows := await self.graph.read("vector_pending", limit=RECONCILE_BATCH):
            texts = [embedding_text(row["title"] or "", row["content"] or "") for row in rows]
            vectors = await self.embedder.embed(texts)
            points = [
                VectorPoint(
                    id=row["id"],
                    vector=vectors[i],
                    namespace=row["namespace"],
                    type=row["type"],
                    tags=tuple(row["tags"] or ()),
                    key=row["key"],
                    created_at_ms=epoch_ms(row["created_at"]),
                    score=row["score"],
                )
                for i, row in enumerate(rows)
            ]
            await self.vectors.upsert(points)
            items = [{"id": row["id"], "content_hash": row["content_hash"]} for row in rows]
            await self.graph.write("vector_mark_synced", items=items)
            written += len(rows)
        return written

    async def _finish_tombstones(self) -> int:
        deleted = 0
        while rows := await self.graph.read("tombstones_list", limit=RECONCILE_BATCH):
            ids = [row["id"] for row in rows]
            await self.vectors.delete(ids)
            await self.graph.write("tombstones_clear", ids=ids)
            deleted += len(ids)
        return deleted

    async def _repair_drift(self) -> tuple[int, int]:
        vector_ids = await self.vectors.all_ids()
        orphans: list[str] = []
        for start in range(0, len(vector_ids), 1000):
            chunk = vector_ids[start : start + 1000]
            rows = await self.graph.read("memory_ids_existing", ids=chunk)
            known = {row["id"] for row in rows}
            orphans.extend(i for i in chunk if i not in known)
        await self.vectors.delete(orphans)
        rows = await self.graph.write("vector_mark_missing", ids=vector_ids)
        return len(orphans), int(rows[0]["marked"]) if rows else 0


def _existing_target(
    namespace: str, data: SaveInput, found: dict[str, Any]
) -> dict[str, Any] | None:
    """The memory a save updates, or None for a create; refuses ids of other namespaces."""
    by_id, by_key = found["by_id"], found["by_key"]
    if by_id is not None:
        if by_id["namespace"] != namespace:
            raise Conflict(f"Memory id {data.id} is taken")
        return by_id
    return by_key


def _link_rows(pairs: Sequence[tuple[str, LinkSpec]]) -> list[dict[str, Any]]:
    base = time.time_ns() // 1000 * 1000
    return [
        {
            "target_id": target_id,
            "type": spec.type,
            "weight": spec.weight,
            "term": spec.term,
            "seq": base + index,
        }
        for index, (target_id, spec) in enumerate(pairs)
    ]


def _bulk_row(plan: _SavePlan) -> dict[str, Any]:
    fields = {k: v for k, v in plan.fields.items() if not k.startswith("previous_")}
    return {**fields, "id": plan.id, "created_at": plan.created_at, "content_hash": plan.hash}


def _link_row(values: Sequence[Any]) -> dict[str, Any]:
    """A link as memory_hydrate returns it (a list: cheaper to transfer than a map)."""
    target_id, key, link_type, term, weight, score, summary, created_ms = values
    return {
        "id": target_id,
        "key": key,
        "type": link_type,
        "term": term,
        "weight": weight,
        "score": score,
        "summary": summary,
        "created_at": created_ms,
    }


def _views_in_order(
    rows: Sequence[dict[str, Any]],
    ids: Sequence[str],
    sort: bool,
    link_filter: LinkFilter | None,
) -> list[dict[str, Any]]:
    flt = link_filter or LinkFilter()
    by_id: dict[str, dict[str, Any]] = {}
    for row in rows:
        links = filter_links(map(_link_row, row["links"]), flt.types, flt.min_weight)
        by_id[row["memory"]["id"]] = memory_view(row["memory"], sort_links(links, sort))
    return [by_id[memory_id] for memory_id in ids if memory_id in by_id]
