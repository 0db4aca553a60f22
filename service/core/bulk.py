"""Bulk import: many memories at once through batched embedding and batched writes in both
stores, with the same two-store order as a single save (Neo4j pending, Qdrant, synced)."""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import replace
from typing import Any, TypedDict

from service.config import Settings
from service.core.backup import Restorer, RestoreReport
from service.core.batch import BatchSaver, Cleanup
from service.core.models import SaveInput, now_utc
from service.core.save_plan import SavePlan, bulk_row, check_sizes, plan_memory, vector_point
from service.errors import InvalidParameter, MnemographError
from service.stores.embeddings import Embedder
from service.stores.graph_store import GraphStore
from service.stores.vector_store import VectorStore

BATCH = 256
LINK_BATCH = 1000


class ImportReport(TypedDict):
    imported: int
    linked: int
    unresolved_links: int


class BulkImporter:
    """Upserts memories by key in batches of 256, then their links by target key."""

    def __init__(
        self,
        settings: Settings,
        graph: GraphStore,
        vectors: VectorStore,
        embedder: Embedder,
        context_vectors: VectorStore | None = None,
    ) -> None:
        self.settings = settings
        self.graph = graph
        self.vectors = vectors
        self.embedder = embedder
        self.context_vectors = context_vectors

    async def run(
        self,
        namespace: str,
        items: Sequence[SaveInput],
        on_progress: Callable[[int], None] | None = None,
    ) -> ImportReport:
        """Every item is size-checked before anything is written; supersessions are refused
        (they go through memory_save or the batch endpoint)."""
        for data in items:
            check_sizes(self.settings.limits, data)
            if data.supersedes:
                raise InvalidParameter(
                    "Invalid supersedes value: bulk import does not supersede. Must be empty "
                    "(use memory_save or POST /v1/memories/batch)"
                )
        imported = 0
        links: list[dict[str, Any]] = []
        for start in range(0, len(items), BATCH):
            batch = items[start : start + BATCH]
            plans = await self._write_batch(namespace, batch)
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
        linked = await self._write_links(namespace, links)
        return {"imported": imported, "linked": linked, "unresolved_links": len(links) - linked}

    async def save_batch(
        self, namespace: str, items: Sequence[object], cleanup: Cleanup | None = None
    ) -> dict[str, Any]:
        """POST /v1/memories/batch: memory_save for each item, with per-item results (see
        `service.core.batch`)."""
        saver = BatchSaver(
            self.settings, self.graph, self.vectors, self.embedder, self.context_vectors
        )
        return await saver.save(namespace, items, cleanup)

    async def restore(
        self, namespace: str, lines: AsyncIterator[tuple[int, bytes | MnemographError]]
    ) -> RestoreReport:
        """POST /v1/import: JSON Lines of an export through the batch path (see
        `service.core.backup`)."""
        saver = BatchSaver(
            self.settings, self.graph, self.vectors, self.embedder, self.context_vectors
        )
        return await Restorer(self.graph, saver).run(namespace, lines)

    async def _write_batch(self, namespace: str, batch: Sequence[SaveInput]) -> list[SavePlan]:
        """One batch: plans, vectors, Neo4j (pending), Qdrant, synced; plans carry stored ids."""
        now = now_utc()
        model, dimensions = self.embedder.model, self.embedder.dimensions
        plans = [
            plan_memory(namespace, d, d.id or str(uuid.uuid4()), d.key, now, model, dimensions)
            for d in batch
        ]
        vectors = await self.embedder.embed([plan.vector_text for plan in plans])
        rows = await self.graph.write(
            "memory_bulk_upsert",
            namespace=namespace,
            vector_store=self.vectors.store_id,
            now=now,
            rows=[bulk_row(p) for p in plans],
        )
        stored_ids = {row["key"]: row["id"] for row in rows}
        superseded = {row["id"] for row in rows if row["superseded"]}
        plans = [replace(plan, id=stored_ids[plan.key]) for plan in plans]
        await self.vectors.upsert(
            [
                vector_point(namespace, p, v, p.id in superseded)
                for p, v in zip(plans, vectors, strict=True)
            ]
        )
        await self.graph.write(
            "vector_mark_synced", items=[{"id": p.id, "content_hash": p.hash} for p in plans]
        )
        return plans

    async def _write_links(self, namespace: str, links: list[dict[str, Any]]) -> int:
        linked = 0
        for start in range(0, len(links), LINK_BATCH):
            chunk = links[start : start + LINK_BATCH]
            base = time.time_ns() // 1000 * 1000
            for index, link in enumerate(chunk):
                link["seq"] = base + index
            rows = await self.graph.write(
                "link_bulk_upsert", namespace=namespace, now=now_utc(), links=chunk
            )
            linked += int(rows[0]["linked"]) if rows else 0
        return linked
