"""Vectors of memories in Qdrant, behind one `VectorStore` protocol with two engines.

`EdgeVectorStore` embeds the Qdrant engine in-process (Qdrant Edge, the default);
`ServerVectorStore` talks to a Qdrant server or cluster through `AsyncQdrantClient`.
This is the only module that imports qdrant packages.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
import qdrant_edge as edge
from qdrant_client import AsyncQdrantClient
from qdrant_client import models as qm

from service.errors import BackendUnavailable

log = logging.getLogger(__name__)

VECTOR_NAME = "dense"
# Payload fields with an index; `namespace` is the tenant key.
KEYWORD_FIELDS = ("namespace", "type", "tags", "key")
INTEGER_FIELDS = ("created_at",)
FLOAT_FIELDS = ("score",)


@dataclass(frozen=True)
class VectorPoint:
    """One memory's vector and the payload used for filtering."""

    id: str
    vector: npt.NDArray[np.float32]
    namespace: str
    type: str
    tags: tuple[str, ...]
    key: str
    created_at_ms: int
    score: float | None = None

    def payload(self) -> dict[str, Any]:
        """Filterable fields; `score` is the importance with null counted as 50."""
        return {
            "namespace": self.namespace,
            "type": self.type,
            "tags": list(self.tags),
            "key": self.key,
            "created_at": self.created_at_ms,
            "score": 50.0 if self.score is None else float(self.score),
        }


@dataclass(frozen=True)
class VectorFilter:
    """Filters pushed into the engine: namespace always, the rest when given."""

    namespace: str
    types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    created_from_ms: int | None = None
    created_to_ms: int | None = None
    min_score: float | None = None


@dataclass(frozen=True)
class VectorHit:
    id: str
    score: float
    created_at_ms: int | None = None


@dataclass
class IndexStatus:
    points: int
    indexed: int
    details: dict[str, Any] = field(default_factory=dict[str, Any])


class VectorStore(Protocol):
    """What the service needs from a vector engine."""

    engine: str

    async def open(self) -> None: ...

    async def close(self) -> None: ...

    async def upsert(self, points: Sequence[VectorPoint]) -> None: ...

    async def delete(self, ids: Sequence[str]) -> None: ...

    async def search(
        self,
        vector: npt.NDArray[np.float32],
        flt: VectorFilter,
        limit: int,
        score_threshold: float | None = None,
    ) -> list[VectorHit]: ...

    async def count(self, namespace: str | None = None) -> int: ...

    async def existing_ids(self, ids: Sequence[str]) -> set[str]: ...

    async def all_ids(self, batch: int = 1000) -> list[str]: ...

    async def status(self) -> IndexStatus: ...

    async def check(self) -> None: ...


def collection_name(model: str) -> str:
    """One collection per embedding model: `memories__<model>` with a safe model slug."""
    slug = "".join(ch if ch.isalnum() else "_" for ch in model.lower()).strip("_")
    return f"memories__{slug}"


class EdgeVectorStore:
    """Qdrant Edge shard under the data folder, with an owned background HNSW indexer.

    The engine's `optimize()` holds the GIL for its whole run (measured), so the indexer
    builds HNSW only when the service has been idle for `idle_s` and enough vectors are
    unindexed; queries meanwhile search unindexed segments exactly.
    """

    engine = "qdrant-edge"

    def __init__(
        self,
        path: Path,
        dimensions: int,
        index_threshold: int = 2000,
        idle_s: float = 30.0,
    ) -> None:
        self._path = path
        self._dimensions = dimensions
        self._index_threshold = index_threshold
        self._idle_s = idle_s
        self._shard: edge.EdgeShard | None = None
        self._last_write = time.monotonic()
        self._unindexed = 0
        self._indexer: asyncio.Task[None] | None = None

    @property
    def shard(self) -> edge.EdgeShard:
        if self._shard is None:
            raise BackendUnavailable("qdrant", "the embedded shard is not open")
        return self._shard

    async def open(self) -> None:
        self._shard = await asyncio.to_thread(self._open_shard)
        info = self._shard.info()
        self._unindexed = info.points_count - info.indexed_vectors_count
        self._indexer = asyncio.create_task(self._index_when_idle(), name="edge-hnsw-indexer")

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
        if self._indexer is not None:
            self._indexer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._indexer
            self._indexer = None
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

    async def delete(self, ids: Sequence[str]) -> None:
        if ids:
            await self._write(edge.UpdateOperation.delete_points(list(ids)))

    async def _write(self, operation: edge.UpdateOperation) -> None:
        shard = self.shard
        try:
            await asyncio.to_thread(_update_and_flush, shard, operation)
        except Exception as exc:
            raise BackendUnavailable("qdrant", str(exc)) from exc
        self._last_write = time.monotonic()

    async def search(
        self,
        vector: npt.NDArray[np.float32],
        flt: VectorFilter,
        limit: int,
        score_threshold: float | None = None,
    ) -> list[VectorHit]:
        request = edge.QueryRequest(
            limit=limit,
            query=edge.Query.Nearest(vector.tolist(), using=VECTOR_NAME),
            filter=_edge_filter(flt),
            score_threshold=score_threshold,
            with_payload=["created_at"],
        )
        shard = self.shard
        try:
            points = shard.query(request)
        except Exception as exc:
            raise BackendUnavailable("qdrant", str(exc)) from exc
        return [VectorHit(str(p.id), float(p.score), _created(p.payload)) for p in points]

    async def count(self, namespace: str | None = None) -> int:
        flt = None if namespace is None else _edge_filter(VectorFilter(namespace))
        return self.shard.count(edge.CountRequest(exact=True, filter=flt))

    async def existing_ids(self, ids: Sequence[str]) -> set[str]:
        if not ids:
            return set()
        records = self.shard.retrieve(list(ids), with_payload=False, with_vector=False)
        return {str(r.id) for r in records}

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

    async def build_index(self) -> bool:
        """Build HNSW now (blocking the process while it runs); true if anything changed."""
        changed = await asyncio.to_thread(self.shard.optimize)
        self._unindexed = 0
        return changed

    async def _index_when_idle(self) -> None:
        while True:
            await asyncio.sleep(min(self._idle_s, 5.0))
            idle = time.monotonic() - self._last_write >= self._idle_s
            if idle and self._unindexed >= self._index_threshold:
                started = time.monotonic()
                await self.build_index()
                log.info("hnsw index built in %.1f s", time.monotonic() - started)


def _created(payload: dict[str, Any] | None) -> int | None:
    value = (payload or {}).get("created_at")
    return int(value) if value is not None else None


def _update_and_flush(shard: edge.EdgeShard, operation: edge.UpdateOperation) -> None:
    shard.update(operation)
    shard.flush()


def _flush_and_close(shard: edge.EdgeShard) -> None:
    shard.flush()
    shard.close()


def _edge_filter(flt: VectorFilter) -> edge.Filter:
    must: list[Any] = [edge.FieldCondition("namespace", match=edge.MatchValue(flt.namespace))]
    if flt.types:
        must.append(edge.FieldCondition("type", match=edge.MatchAny(list(flt.types))))
    must.extend(edge.FieldCondition("tags", match=edge.MatchValue(tag)) for tag in flt.tags)
    if flt.created_from_ms is not None or flt.created_to_ms is not None:
        bounds = edge.RangeFloat(
            gte=None if flt.created_from_ms is None else float(flt.created_from_ms),
            lte=None if flt.created_to_ms is None else float(flt.created_to_ms),
        )
        must.append(edge.FieldCondition("created_at", range=bounds))
    if flt.min_score is not None:
        must.append(edge.FieldCondition("score", range=edge.RangeFloat(gte=flt.min_score)))
    return edge.Filter(must=must)


class ServerVectorStore:
    """A Qdrant server or cluster (or qdrant-client local mode, which mirrors its API)."""

    engine = "qdrant-server"

    def __init__(
        self,
        client: AsyncQdrantClient,
        collection: str,
        dimensions: int,
    ) -> None:
        self._client = client
        self._collection = collection
        self._dimensions = dimensions

    async def open(self) -> None:
        try:
            if not await self._client.collection_exists(self._collection):
                await self._client.create_collection(
                    self._collection,
                    vectors_config={
                        VECTOR_NAME: qm.VectorParams(
                            size=self._dimensions, distance=qm.Distance.COSINE
                        )
                    },
                )
            for name in KEYWORD_FIELDS:
                schema: Any = (
                    qm.KeywordIndexParams(type=qm.KeywordIndexType.KEYWORD, is_tenant=True)
                    if name == "namespace"
                    else qm.PayloadSchemaType.KEYWORD
                )
                await self._client.create_payload_index(self._collection, name, schema)
            for name in INTEGER_FIELDS:
                await self._client.create_payload_index(
                    self._collection, name, qm.PayloadSchemaType.INTEGER
                )
            for name in FLOAT_FIELDS:
                await self._client.create_payload_index(
                    self._collection, name, qm.PayloadSchemaType.FLOAT
                )
        except Exception as exc:
            raise BackendUnavailable("qdrant", str(exc)) from exc

    async def close(self) -> None:
        await self._client.close()

    async def upsert(self, points: Sequence[VectorPoint]) -> None:
        if not points:
            return
        structs = [
            qm.PointStruct(id=p.id, vector={VECTOR_NAME: p.vector.tolist()}, payload=p.payload())
            for p in points
        ]
        await self._call(self._client.upsert(self._collection, structs, wait=True))

    async def delete(self, ids: Sequence[str]) -> None:
        if ids:
            selector = qm.PointIdsList(points=list(ids))
            await self._call(self._client.delete(self._collection, selector, wait=True))

    async def search(
        self,
        vector: npt.NDArray[np.float32],
        flt: VectorFilter,
        limit: int,
        score_threshold: float | None = None,
    ) -> list[VectorHit]:
        response = await self._call(
            self._client.query_points(
                self._collection,
                query=vector.tolist(),
                using=VECTOR_NAME,
                query_filter=_server_filter(flt),
                limit=limit,
                score_threshold=score_threshold,
                with_payload=["created_at"],
            )
        )
        return [VectorHit(str(p.id), float(p.score), _created(p.payload)) for p in response.points]

    async def count(self, namespace: str | None = None) -> int:
        flt = None if namespace is None else _server_filter(VectorFilter(namespace))
        result = await self._call(
            self._client.count(self._collection, count_filter=flt, exact=True)
        )
        return result.count

    async def existing_ids(self, ids: Sequence[str]) -> set[str]:
        if not ids:
            return set()
        records = await self._call(
            self._client.retrieve(
                self._collection, list(ids), with_payload=False, with_vectors=False
            )
        )
        return {str(r.id) for r in records}

    async def all_ids(self, batch: int = 1000) -> list[str]:
        ids: list[str] = []
        offset: Any = None
        while True:
            records, offset = await self._call(
                self._client.scroll(
                    self._collection, limit=batch, offset=offset, with_payload=False
                )
            )
            ids.extend(str(r.id) for r in records)
            if offset is None:
                return ids

    async def status(self) -> IndexStatus:
        info = await self._call(self._client.get_collection(self._collection))
        points = info.points_count or 0
        indexed = info.indexed_vectors_count or 0
        return IndexStatus(
            points=points,
            indexed=indexed,
            details={"engine": self.engine, "status": str(info.status)},
        )

    async def check(self) -> None:
        await self._call(self._client.collection_exists(self._collection))

    async def _call(self, awaitable: Any) -> Any:
        try:
            return await awaitable
        except Exception as exc:
            raise BackendUnavailable("qdrant", str(exc)) from exc


def _server_filter(flt: VectorFilter) -> qm.Filter:
    must: list[Any] = [qm.FieldCondition(key="namespace", match=qm.MatchValue(value=flt.namespace))]
    if flt.types:
        must.append(qm.FieldCondition(key="type", match=qm.MatchAny(any=list(flt.types))))
    must.extend(qm.FieldCondition(key="tags", match=qm.MatchValue(value=tag)) for tag in flt.tags)
    if flt.created_from_ms is not None or flt.created_to_ms is not None:
        must.append(
            qm.FieldCondition(
                key="created_at",
                range=qm.Range(gte=flt.created_from_ms, lte=flt.created_to_ms),
            )
        )
    if flt.min_score is not None:
        must.append(qm.FieldCondition(key="score", range=qm.Range(gte=flt.min_score)))
    return qm.Filter(must=must)
