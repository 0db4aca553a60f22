"""The server engine: a Qdrant server or cluster through `AsyncQdrantClient`; the collection is
created with the configured shards and replicas, and named by an id kept in its metadata."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

import httpx
import numpy as np
import numpy.typing as npt
from qdrant_client import AsyncQdrantClient
from qdrant_client import models as qm
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from service.errors import BackendUnavailable
from service.filters import AnyOf, Between, Condition, Equals, MemoryFilters
from service.retry import retrying
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

log = logging.getLogger(__name__)
T = TypeVar("T")

STORE_ID_KEY = "mnemograph_store_id"
# A cluster fails some calls while its peers change: a restarted peer is routed reads before it
# has loaded its shards (HTTP 500 "Local shard 2 not found", measured on Qdrant 1.19 with a
# 3-peer cluster), and a peer may be unreachable for a moment. Every call below is idempotent
# (upserts and deletes by id, payload sets, reads), so such a failure is retried, the next try
# usually going to another replica, for RETRY_S; after that it is `BackendUnavailable`.
RETRY_S = 5.0
TRANSIENT_STATUS = frozenset({500, 502, 503, 504})


@dataclass(frozen=True)
class CollectionLayout:
    """How a collection this service creates is spread over a cluster's peers."""

    shards: int = 1
    replication_factor: int = 1
    # Replicas that must apply a write before it is acknowledged. 1 in a cluster: the vectors
    # derive from Neo4j, the source of truth, and reconcile rewrites a lost one, whereas with
    # every replica required a write is refused while one of them is down.
    write_consistency_factor: int = 1


class ServerVectorStore:
    """A Qdrant server or cluster."""

    engine = "qdrant-server"

    def __init__(
        self,
        client: AsyncQdrantClient,
        collection: str,
        dimensions: int,
        layout: CollectionLayout | None = None,
        retry_s: float = RETRY_S,
    ) -> None:
        self._client = client
        self._collection = collection
        self._dimensions = dimensions
        self._layout = layout or CollectionLayout()
        self._retry_s = retry_s
        self._store_id = ""

    @classmethod
    def at(
        cls,
        url: str,
        api_key: str | None,
        collection: str,
        dimensions: int,
        layout: CollectionLayout | None = None,
    ) -> ServerVectorStore:
        """The collection on the server or cluster at `url` (a 10 s timeout per call)."""
        client = AsyncQdrantClient(url=url, api_key=api_key, timeout=10)
        return cls(client, collection, dimensions, layout)

    @property
    def store_id(self) -> str:
        """From the collection's metadata (set when this service created it); a collection made
        by hand has none and is named by its own name."""
        if not self._store_id:
            raise BackendUnavailable("qdrant", "the collection is not open")
        return self._store_id

    async def open(self) -> None:
        try:
            if not await self._client.collection_exists(self._collection):
                await self._create()
            info = await self._client.get_collection(self._collection)
            metadata = info.config.metadata or {}
            self._store_id = str(
                metadata.get(STORE_ID_KEY) or uuid.uuid5(uuid.NAMESPACE_URL, self._collection)
            )
            await self._ensure_payload_indexes()
        except Exception as exc:
            raise BackendUnavailable("qdrant", str(exc)) from exc

    async def _create(self) -> None:
        """The collection with this service's layout; a replica that created it at the same
        moment wins (its metadata is read back)."""
        layout = self._layout
        try:
            await self._client.create_collection(
                self._collection,
                vectors_config={
                    VECTOR_NAME: qm.VectorParams(size=self._dimensions, distance=qm.Distance.COSINE)
                },
                shard_number=layout.shards,
                replication_factor=layout.replication_factor,
                write_consistency_factor=layout.write_consistency_factor,
                metadata={STORE_ID_KEY: f"qdrant-{uuid.uuid4()}"},
            )
        except Exception:
            if not await self._client.collection_exists(self._collection):
                raise

    async def _ensure_payload_indexes(self) -> None:
        for name in KEYWORD_FIELDS:
            schema: Any = (
                qm.KeywordIndexParams(type=qm.KeywordIndexType.KEYWORD, is_tenant=True)
                if name == "namespace"
                else qm.PayloadSchemaType.KEYWORD
            )
            await self._client.create_payload_index(self._collection, name, schema, wait=True)
        for name in INTEGER_FIELDS:
            await self._client.create_payload_index(
                self._collection, name, qm.PayloadSchemaType.INTEGER, wait=True
            )
        for name in FLOAT_FIELDS:
            await self._client.create_payload_index(
                self._collection, name, qm.PayloadSchemaType.FLOAT, wait=True
            )

    async def close(self) -> None:
        await self._client.close()

    async def upsert(self, points: Sequence[VectorPoint]) -> None:
        if not points:
            return
        structs = [
            qm.PointStruct(id=p.id, vector={VECTOR_NAME: p.vector.tolist()}, payload=p.payload())
            for p in points
        ]
        await self._call(
            "upsert", lambda: self._client.upsert(self._collection, structs, wait=True)
        )

    async def delete(self, ids: Sequence[str]) -> None:
        if ids:
            selector = qm.PointIdsList(points=list(ids))
            await self._call(
                "delete", lambda: self._client.delete(self._collection, selector, wait=True)
            )

    async def set_superseded(self, ids: Sequence[str], superseded: bool) -> None:
        if ids:
            points = qm.Filter(must=[qm.HasIdCondition(has_id=list(ids))])
            await self._call(
                "set_payload",
                lambda: self._client.set_payload(
                    self._collection, {"superseded": int(superseded)}, points=points, wait=True
                ),
            )

    async def search(
        self,
        vector: npt.NDArray[np.float32],
        flt: VectorFilter,
        limit: int,
        score_threshold: float | None = None,
        with_vectors: bool = False,
    ) -> list[VectorHit]:
        response = await self._call(
            "query_points",
            lambda: self._client.query_points(
                self._collection,
                query=vector.tolist(),
                using=VECTOR_NAME,
                query_filter=_server_filter(flt),
                limit=limit,
                score_threshold=score_threshold,
                with_payload=["created_at"],
                with_vectors=[VECTOR_NAME] if with_vectors else False,
            ),
        )
        return [
            VectorHit(str(p.id), float(p.score), created_at_ms(p.payload), dense(p.vector))
            for p in response.points
        ]

    async def count(self, namespace: str | None = None, exact: bool = True) -> int:
        flt = (
            None
            if namespace is None
            else _server_filter(VectorFilter(namespace, MemoryFilters(include_superseded=True)))
        )
        result = await self._call(
            "count", lambda: self._client.count(self._collection, count_filter=flt, exact=exact)
        )
        return result.count

    async def existing_ids(self, ids: Sequence[str]) -> set[str]:
        if not ids:
            return set()
        records = await self._call(
            "retrieve",
            lambda: self._client.retrieve(
                self._collection, list(ids), with_payload=False, with_vectors=False
            ),
        )
        return {str(r.id) for r in records}

    async def vectors_of(self, ids: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        if not ids:
            return {}
        records = await self._call(
            "retrieve",
            lambda: self._client.retrieve(
                self._collection, list(ids), with_payload=False, with_vectors=[VECTOR_NAME]
            ),
        )
        found = ((str(record.id), dense(record.vector)) for record in records)
        return {point_id: vector for point_id, vector in found if vector is not None}

    async def all_ids(self, batch: int = 1000) -> list[str]:
        ids: list[str] = []
        offset: Any = None
        while True:
            scroll = partial(
                self._client.scroll,
                self._collection,
                limit=batch,
                offset=offset,
                with_payload=False,
            )
            records, offset = await self._call("scroll", scroll)
            ids.extend(str(r.id) for r in records)
            if offset is None:
                return ids

    async def status(self) -> IndexStatus:
        info = await self._call(
            "get_collection", lambda: self._client.get_collection(self._collection)
        )
        points = info.points_count or 0
        indexed = info.indexed_vectors_count or 0
        return IndexStatus(
            points=points,
            indexed=indexed,
            details={"engine": self.engine, "status": str(info.status)},
        )

    async def check(self) -> None:
        """A probe: how Qdrant answers now, not retried."""
        await self._call(
            "collection_exists",
            lambda: self._client.collection_exists(self._collection),
            retry=False,
        )

    async def _call(self, name: str, call: Callable[[], Awaitable[T]], retry: bool = True) -> T:
        """`call`, retried while it fails transiently (for `retry_s`); any failure that remains
        is `BackendUnavailable`."""
        retrying_call = retrying(
            f"qdrant {name}",
            transient if retry else never,
            self._retry_s,
            first_wait_s=0.1,
            max_wait_s=1.0,
            logger=log,
        )
        try:
            async for attempt in retrying_call:
                with attempt:
                    return await call()
        except Exception as exc:
            raise BackendUnavailable("qdrant", str(exc)) from exc
        raise AssertionError("unreachable: the last attempt returns or raises")


def never(exc: BaseException) -> bool:
    """No failure is worth another try (a probe that must answer now)."""
    return False


def transient(exc: BaseException) -> bool:
    """A failure a later try may not meet: Qdrant's 5xx, or a request that did not complete."""
    if isinstance(exc, UnexpectedResponse):
        return exc.status_code in TRANSIENT_STATUS
    return isinstance(exc, ResponseHandlingException) and isinstance(
        exc.source, httpx.TransportError
    )


def _server_filter(flt: VectorFilter) -> qm.Filter:
    """The filter's conditions as a Qdrant filter."""
    conditions = flt.conditions()
    must: list[Any] = [_server_condition(c) for c in conditions.must]
    must_not: list[Any] = [_server_condition(c) for c in conditions.must_not]
    return qm.Filter(must=must, must_not=must_not or None)


def _server_condition(condition: Condition) -> qm.FieldCondition:
    match condition:
        case Equals(field, value):
            return qm.FieldCondition(key=field, match=qm.MatchValue(value=value))
        case AnyOf(field, values):
            return qm.FieldCondition(key=field, match=qm.MatchAny(any=list(values)))
        case Between(field, gte, lte):
            return qm.FieldCondition(key=field, range=qm.Range(gte=gte, lte=lte))
