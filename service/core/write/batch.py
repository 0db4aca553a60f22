"""Batch save (POST /v1/memories/batch): many memory_save calls in one request, each item checked
and reported alone, the valid ones written together in the two-store order of a single save."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from pydantic import ValidationError

from service.config import LimitsSettings, Settings
from service.core.models import SaveInput, now_utc
from service.core.results import BatchRefused, BatchResult, BatchSaved
from service.core.stores import Stores
from service.core.write.batch_plan import BatchPlanner, Planned, changed_texts, plan_batch
from service.core.write.committed import CommittedWork
from service.core.write.save_plan import (
    Restored,
    SavePlan,
    batch_row,
    check_sizes,
    vector_point,
)
from service.core.write.supersede import (
    flag_vectors,
    record_supersession,
)
from service.errors import (
    InvalidParameter,
    MnemographError,
    error_envelope,
    invalid_from_validation,
)
from service.stores.embeddings import Vector
from service.stores.graph_store import Tx

EMBED_CHUNK = 64  # the embedder's lock is released between chunks: queries are not starved

Checked = SaveInput | MnemographError
Cleanup = Callable[[str, Sequence[str]], Awaitable[object]]


def validate_items(limits: LimitsSettings, items: Sequence[object]) -> list[Checked]:
    """Each item as memory_save validates it, or the error that item gets."""
    if not items:
        raise InvalidParameter("Invalid memories value: []. Must hold at least one memory")
    if len(items) > limits.max_batch:
        raise InvalidParameter(
            f"Invalid memories value: {len(items)} memories. Must be at most "
            f"{limits.max_batch} per call"
        )
    return [_validate(limits, item) for item in items]


def _validate(limits: LimitsSettings, item: object) -> Checked:
    if not isinstance(item, Mapping):
        return InvalidParameter(
            "Invalid memories item: each must be an object (a memory_save body)"
        )
    try:
        data = SaveInput.model_validate(item)
        check_sizes(limits, data)
    except ValidationError as exc:
        return invalid_from_validation(exc.errors())
    except MnemographError as exc:
        return exc
    return data


@dataclass(frozen=True)
class _Written:
    """What the transaction wrote: the plans, the ids whose vector is pending, and the
    namespace's size afterwards."""

    planner: BatchPlanner
    pending: set[str] = field(default_factory=set[str])
    db_size_bytes: int = 0
    superseded: set[str] = field(default_factory=set[str])
    flagged: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])


class BatchSaver:
    """Saves a batch: one Neo4j transaction (vectors pending), embedding in chunks, one Qdrant
    write, then the pending marks cleared; reconcile (core.upkeep) finishes a crash between."""

    def __init__(
        self, settings: Settings, stores: Stores, committed: CommittedWork | None = None
    ) -> None:
        self.settings = settings
        self.stores = stores
        self.committed = committed or CommittedWork()

    async def save(
        self,
        namespace: str,
        items: Sequence[object],
        cleanup: Cleanup | None = None,
        restored: Mapping[int, Restored] | None = None,
    ) -> BatchResult:
        """Per-item results in the order given; `saved` + `failed` = the number of items.
        `cleanup(namespace, keep)` runs when the saves push the namespace over its budget;
        `restored` (an import) gives items their exported timestamps and supersession."""
        checked = validate_items(self.settings.limits, items)
        valid = {i: data for i, data in enumerate(checked) if isinstance(data, SaveInput)}
        written = _Written(
            BatchPlanner(namespace, self.stores.embedder.model, self.stores.embedder.dimensions, {})
        )
        embeddings: dict[tuple[str, ...], asyncio.Task[list[Vector]]] = {}
        if valid:
            try:
                written = await self.stores.graph.transaction(
                    lambda tx: self._write(tx, namespace, valid, restored or {}, embeddings)
                )
            finally:  # embeddings no commit needs (all, if it failed) stop; none is left unawaited
                kept = changed_texts(written.planner.planned)
                cancel_all(task for texts, task in embeddings.items() if texts != kept)
                await asyncio.gather(*embeddings.values(), return_exceptions=True)
        texts = changed_texts(written.planner.planned)
        early = dict(zip(texts, embeddings[texts].result(), strict=True)) if texts else {}
        await self.committed.finish(self._finish(namespace, written, early, cleanup))
        return batch_response(items, checked, written.planner.planned, written.planner.errors)

    async def _finish(
        self,
        namespace: str,
        written: _Written,
        early: dict[str, Vector],
        cleanup: Cleanup | None,
    ) -> None:
        """Qdrant after Neo4j: the vectors still pending, the superseded flags, the pending
        marks cleared; then an LRU cleanup when over budget."""
        planned = written.planner.planned
        pending = [p.plan for p in planned if p.plan.id in written.pending]
        await self._write_vectors(namespace, pending, written.superseded, early)
        stores = [self.stores.vectors, self.stores.context_vectors]
        await flag_vectors(self.stores.graph, stores, written.flagged, superseded=True)
        if cleanup is not None and written.db_size_bytes > self.settings.memory.max_size_bytes:
            await cleanup(namespace, [p.plan.id for p in planned])

    async def _write(
        self,
        tx: Tx,
        namespace: str,
        valid: dict[int, SaveInput],
        restored: Mapping[int, Restored],
        embeddings: dict[tuple[str, ...], asyncio.Task[list[Vector]]],
    ) -> _Written:
        """Find, plan and write in one transaction: what was read is what gets written. The
        changed texts are embedded while Neo4j writes (one task per set of texts, kept across
        the driver's retries)."""
        planner = await plan_batch(
            tx,
            namespace,
            self.stores.embedder.model,
            self.stores.embedder.dimensions,
            valid,
            restored,
        )
        if not planner.planned:
            return _Written(planner)
        texts = changed_texts(planner.planned)
        if texts and texts not in embeddings:
            embeddings[texts] = asyncio.create_task(self._embed(texts))
        rows = await tx.run(
            "memory_batch_upsert",
            namespace=namespace,
            vector_store=self.stores.vectors.store_id,
            now=now_utc(),
            rows=[batch_row(p.plan, p.restored) for p in planner.planned],
        )
        pending = {row["id"] for row in rows if row["vector_pending"]}
        superseded = {row["id"] for row in rows if row["superseded"]}
        size = int(rows[0]["db_size_bytes"])
        links = planner.link_rows()
        if links:
            linked = await tx.run(
                "link_batch_upsert", namespace=namespace, now=now_utc(), links=links
            )
            size = int(linked[0]["db_size_bytes"])
        flagged = await record_supersession(
            tx, [(p.plan.id, p.supersedes) for p in planner.planned]
        )
        return _Written(planner, pending, size, superseded, flagged)

    async def _embed(self, texts: Sequence[str]) -> list[Vector]:
        """In chunks of EMBED_CHUNK: the embedder is free for queries between them."""
        vectors: list[Vector] = []
        for start in range(0, len(texts), EMBED_CHUNK):
            vectors.extend(await self.stores.embedder.embed(texts[start : start + EMBED_CHUNK]))
        return vectors

    async def _write_vectors(
        self,
        namespace: str,
        plans: Sequence[SavePlan],
        superseded: set[str],
        embedded: Mapping[str, Vector],
    ) -> None:
        """The pending plans' vectors: those embedded during the transaction, the others (text
        unchanged, vector pending since a failed write) now; then the pending marks cleared."""
        missing = list(dict.fromkeys(p.vector_text for p in plans if p.vector_text not in embedded))
        vectors = {**embedded, **dict(zip(missing, await self._embed(missing), strict=True))}
        for start in range(0, len(plans), EMBED_CHUNK):
            chunk = plans[start : start + EMBED_CHUNK]
            await self.stores.vectors.upsert(
                [
                    vector_point(namespace, p, vectors[p.vector_text], p.id in superseded)
                    for p in chunk
                ]
            )
        if plans:
            await self.stores.graph.write(
                "vector_mark_synced", items=[{"id": p.id, "content_hash": p.hash} for p in plans]
            )


def cancel_all(tasks: Iterable[asyncio.Task[Any]]) -> None:
    """Stop embeddings nobody will use (a chunk already running finishes; the rest do not run)."""
    for task in tasks:
        task.cancel()


def batch_response(
    items: Sequence[object],
    checked: Sequence[Checked],
    planned: Sequence[Planned],
    errors: Mapping[int, MnemographError],
) -> BatchResult:
    """`{success, results, saved, failed}`: a saved item's id, key and created flag, or the
    error envelope of the item that was refused (with the key it gave, if any)."""
    plans = {p.index: p.plan for p in planned}
    results: list[BatchSaved | BatchRefused] = []
    for index, item in enumerate(checked):
        plan = plans.get(index)
        if plan is not None:
            results.append(
                {
                    "index": index,
                    "success": True,
                    "id": plan.id,
                    "key": plan.key,
                    "created": plan.created,
                }
            )
            continue
        error = item if isinstance(item, MnemographError) else errors[index]
        refused = {
            "index": index,
            **error_envelope(error),
            "id": None,
            "key": _given_key(items[index]),
        }
        results.append(cast(BatchRefused, refused))
    return {
        "success": True,
        "results": results,
        "saved": len(plans),
        "failed": len(checked) - len(plans),
    }


def _given_key(item: object) -> str | None:
    if isinstance(item, Mapping):
        key: object = cast(Mapping[str, object], item).get("key")
        return key if isinstance(key, str) else None
    return None
