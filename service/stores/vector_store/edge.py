"""The embedded engine: a Qdrant Edge shard in-process, with an owned background HNSW indexer."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import qdrant_edge as edge

from service.errors import BackendUnavailable
from service.filters import AnyOf, Between, Condition, Equals, MemoryFilters
from service.stores.activity import PROCESS_ACTIVITY, Activity
from service.stores.vector_store.base import (
    FLOAT_FIELDS,
    INTEGER_FIELDS,
    KEYWORD_FIELDS,
    VECTOR_NAME,
    IndexStatus,
    VectorFilter,
    VectorHit,
    VectorPoint,
    created_at_ms,
    dense,
)
from service.stores.vector_store.recent import RecentPoint, RecentPoints

log = logging.getLogger(__name__)


class EdgeVectorStore:
    """Qdrant Edge shard under the data folder, with an owned background HNSW indexer.

    The engine's `optimize()` holds the GIL for its whole run (measured), so the indexer
    builds HNSW only when the whole process has been quiet for `idle_s` (`activity`: no
    request, and no write or search of any embedded store) and enough vectors are unindexed;
    queries meanwhile search unindexed segments exactly.

    Writes reach the engine's write-ahead log at once (they survive a killed process); the
    shard is flushed by an owned task at most `flush_s` after a write, not per write (a flush
    per write was 30% of a save's CPU). A failed flush makes `check()` fail until one succeeds.
    Searches that want the hits' vectors take them, with the hits' ids and creation times, from
    the `recent_points` last written or read where they can (recent.py).
    """

    engine = "qdrant-edge"

    def __init__(
        self,
        path: Path,
        dimensions: int,
        index_threshold: int = 2000,
        idle_s: float = 30.0,
        flush_s: float = 1.0,
        recent_points: int = 20_000,
        activity: Activity = PROCESS_ACTIVITY,
    ) -> None:
        self._path = path
        self._dimensions = dimensions
        self._index_threshold = index_threshold
        self._idle_s = idle_s
        self._shard: edge.EdgeShard | None = None
        self._activity = activity
        self._unindexed = 0
        self._indexer: asyncio.Task[None] | None = None
        self._flush_s = flush_s
        self._dirty = False
        self._flush_error: str | None = None
        self._flusher: asyncio.Task[None] | None = None
        self._recent = RecentPoints(recent_points)
        self._store_id = ""

    @property
    def store_id(self) -> str:
        """Kept in a file beside the shard's folder, made on first use (known while the shard
        is closed too: a save records it before it writes the vector)."""
        if not self._store_id:
            self._store_id = _store_id_beside(self._path)
        return self._store_id

    @property
    def shard(self) -> edge.EdgeShard:
        if self._shard is None:
            raise BackendUnavailable("qdrant", "the embedded shard is not open")
        return self._shard

    async def open(self) -> None:
        self._shard = await asyncio.to_thread(self._open_shard)
        self._flush_error, self._dirty = None, False
        self._recent.clear()
        info = self._shard.info()
        self._unindexed = info.points_count - info.indexed_vectors_count
        self._indexer = asyncio.create_task(self._index_when_idle(), name="edge-hnsw-indexer")
        self._flusher = asyncio.create_task(self._flush_when_dirty(), name="edge-flusher")

    def _open_shard(self) -> edge.EdgeShard:
        config = edge.EdgeConfig(
            vectors={VECTOR_NAME: edge.EdgeVectorParams(self._dimensions, edge.Distance.Cosine)}
        )
        try:
            if (self._path / "edge_config.json").exists():
                shard = edge.EdgeShard.load(str(self._path), config)
            else:
                self._path.mkdir(parents=True, exist_ok=True)
                shard = edge.EdgeShard.create(str(self._path), config)
        except Exception as exc:
            raise BackendUnavailable("qdrant", f"cannot open {self._path}: {exc}") from exc
        existing = shard.info().payload_schema
        for name in KEYWORD_FIELDS:
            if name not in existing:
                schema = (
                    edge.KeywordIndexParams(is_tenant=True)
                    if name == "namespace"
                    else edge.PayloadSchemaType.Keyword
                )
                shard.update(edge.UpdateOperation.create_field_index(name, schema))
        for name in INTEGER_FIELDS:
            if name not in existing:
                shard.update(
                    edge.UpdateOperation.create_field_index(name, edge.PayloadSchemaType.Integer)
                )
        for name in FLOAT_FIELDS:
            if name not in existing:
                shard.update(
                    edge.UpdateOperation.create_field_index(name, edge.PayloadSchemaType.Float)
                )
        return shard

    async def close(self) -> None:
        for task in (self._indexer, self._flusher):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._indexer = self._flusher = None
        if self._shard is not None:
            shard, self._shard = self._shard, None
            await asyncio.to_thread(_flush_and_close, shard)

    async def upsert(self, points: Sequence[VectorPoint]) -> None:
        if not points:
            return
        operation = edge.UpdateOperation.upsert_points(
            [edge.Point(p.id, {VECTOR_NAME: p.vector.tolist()}, p.payload()) for p in points]
        )
        await self._write(operation)
        self._unindexed += len(points)
        # The vector as the engine stores it.
        self._recent.put(RecentPoint(p.id, unit(p.vector), p.created_at_ms) for p in points)

    async def delete(self, ids: Sequence[str]) -> None:
        if ids:
            await self._write(edge.UpdateOperation.delete_points(list(ids)))
            self._recent.drop(ids)

    async def set_superseded(self, ids: Sequence[str], superseded: bool) -> None:
        if ids:
            points = edge.Filter(must=[edge.HasIdCondition(set(ids))])
            payload = {"superseded": int(superseded)}
            await self._write(edge.UpdateOperation.set_payload_by_filter(points, payload))

    async def _write(self, operation: edge.UpdateOperation) -> None:
        shard = self.shard
        try:
            await asyncio.to_thread(shard.update, operation)
        except Exception as exc:
            raise BackendUnavailable("qdrant", str(exc)) from exc
        self._activity.touch()
        self._dirty = True

    async def flush(self) -> None:
        """Flush the shard now; remembers a failure for `check()`."""
        self._dirty = False
        try:
            await asyncio.to_thread(self.shard.flush)
        except Exception as exc:
            self._dirty = True
            self._flush_error = str(exc)
            raise BackendUnavailable("qdrant", f"flush failed: {exc}") from exc
        self._flush_error = None

    async def _flush_when_dirty(self) -> None:
        while True:
            await asyncio.sleep(self._flush_s)
            if self._dirty:
                with contextlib.suppress(BackendUnavailable):
                    await self.flush()

    async def search(
        self,
        vector: npt.NDArray[np.float32],
        flt: VectorFilter,
        limit: int,
        score_threshold: float | None = None,
        with_vectors: bool = False,
    ) -> list[VectorHit]:
        request = edge.QueryRequest(
            limit=limit,
            query=edge.Query.Nearest(vector.tolist(), using=VECTOR_NAME),
            filter=_edge_filter(flt),
            score_threshold=score_threshold,
            with_payload=False if with_vectors else ["created_at"],
        )
        shard = self.shard
        self._activity.touch()
        try:
            points = shard.query(request)
        except Exception as exc:
            raise BackendUnavailable("qdrant", str(exc)) from exc
        if with_vectors:
            return await self._hits_with_points(points)
        return [VectorHit(str(p.id), float(p.score), created_at_ms(p.payload)) for p in points]

    async def _hits_with_points(self, points: Sequence[edge.ScoredPoint]) -> list[VectorHit]:
        """The hits with their stored vectors and creation times: the recent ones from memory,
        the others read from the shard (and kept)."""
        held = self._recent.get([p.id for p in points])
        missing = [str(p.id) for p, known in zip(points, held, strict=True) if known is None]
        read = await self._stored_points(missing) if missing else {}
        self._recent.put(point for point in read.values() if point.vector is not None)
        hits: list[VectorHit] = []
        for p, known in zip(points, held, strict=True):
            if known is None:
                point_id = str(p.id)
                known = read.get(point_id, RecentPoint(point_id, None, None))  # deleted meanwhile
            hits.append(VectorHit(known.id, float(p.score), known.created_at_ms, known.vector))
        return hits

    async def _stored_points(self, ids: Sequence[str]) -> dict[str, RecentPoint]:
        """The points' stored vectors and creation times, read from the shard, by id."""
        self._activity.touch()
        try:
            records = self.shard.retrieve(list(ids), with_payload=["created_at"], with_vector=True)
        except Exception as exc:
            raise BackendUnavailable("qdrant", str(exc)) from exc
        read = (RecentPoint(str(r.id), dense(r.vector), created_at_ms(r.payload)) for r in records)
        return {point.id: point for point in read}

    async def count(self, namespace: str | None = None, exact: bool = True) -> int:
        flt = (
            None
            if namespace is None
            else _edge_filter(VectorFilter(namespace, MemoryFilters(include_superseded=True)))
        )
        return self.shard.count(edge.CountRequest(exact=exact, filter=flt))

    async def existing_ids(self, ids: Sequence[str]) -> set[str]:
        if not ids:
            return set()
        records = self.shard.retrieve(list(ids), with_payload=False, with_vector=False)
        return {str(r.id) for r in records}

    async def vectors_of(self, ids: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        if not ids:
            return {}
        self._activity.touch()
        try:
            records = self.shard.retrieve(list(ids), with_payload=False, with_vector=True)
        except Exception as exc:
            raise BackendUnavailable("qdrant", str(exc)) from exc
        return _named_vectors((str(r.id), r.vector) for r in records)

    async def all_ids(self, batch: int = 1000) -> list[str]:
        ids: list[str] = []
        offset: Any = None
        while True:
            records, offset = self.shard.scroll(
                edge.ScrollRequest(offset=offset, limit=batch, with_payload=False)
            )
            ids.extend(str(r.id) for r in records)
            if offset is None:
                return ids

    async def status(self) -> IndexStatus:
        info = self.shard.info()
        return IndexStatus(
            points=info.points_count,
            indexed=info.indexed_vectors_count,
            details={"engine": self.engine, "segments": info.segments_count},
        )

    async def check(self) -> None:
        self.shard.info()
        if self._flush_error is not None:
            raise BackendUnavailable("qdrant", f"flush failed: {self._flush_error}")

    async def build_index(self) -> bool:
        """Build HNSW now (blocking the process while it runs); true if anything changed."""
        changed = await asyncio.to_thread(self.shard.optimize)
        self._unindexed = 0
        return changed

    async def _index_when_idle(self) -> None:
        while True:
            await asyncio.sleep(min(self._idle_s, 5.0))
            idle = self._activity.quiet_s() >= self._idle_s
            if idle and self._unindexed >= self._index_threshold:
                started = time.monotonic()
                await self.build_index()
                log.info("hnsw index built in %.1f s", time.monotonic() - started)


def _store_id_beside(path: Path) -> str:
    """The id in `<shard folder>.store_id`, written with a new one when missing."""
    marker = path.with_name(path.name + ".store_id")
    if marker.exists():
        return marker.read_text().strip()
    marker.parent.mkdir(parents=True, exist_ok=True)
    new_id = f"edge-{uuid.uuid4()}"
    partial = marker.with_suffix(".partial")
    partial.write_text(new_id + "\n")
    partial.replace(marker)
    return new_id


def unit(vector: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """The vector scaled to length 1 (a cosine collection stores it so)."""
    norm = float(np.linalg.norm(vector))
    return (vector / norm if norm > 0 else vector).astype(np.float32)


def _flush_and_close(shard: edge.EdgeShard) -> None:
    shard.flush()
    shard.close()


def _named_vectors(records: Iterable[tuple[str, Any]]) -> dict[str, npt.NDArray[np.float32]]:
    """Point id → its dense vector, from records whose vector is `{name: list[float]}`."""
    found = ((point_id, dense(vectors)) for point_id, vectors in records)
    return {point_id: vector for point_id, vector in found if vector is not None}


def _edge_filter(flt: VectorFilter) -> edge.Filter:
    """The filter's conditions as a Qdrant Edge filter."""
    conditions = flt.conditions()
    must: list[Any] = [_edge_condition(c) for c in conditions.must]
    must_not: list[Any] = [_edge_condition(c) for c in conditions.must_not]
    return edge.Filter(must=must, must_not=must_not or None)


def _edge_condition(condition: Condition) -> edge.FieldCondition:
    match condition:
        case Equals(field, value):
            return edge.FieldCondition(field, match=edge.MatchValue(value))
        case AnyOf(field, values):
            return edge.FieldCondition(field, match=edge.MatchAny(list(values)))
        case Between(field, gte, lte):
            return edge.FieldCondition(field, range=edge.RangeFloat(gte=gte, lte=lte))
