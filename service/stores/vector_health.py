"""Honest readiness for the embedded vector engine: a failed write is remembered, the engine is
reopened to recover (and the write tried once more), and `check()` fails while it stays broken."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from service.errors import BackendUnavailable
from service.stores.vector_store import (
    IndexStatus,
    VectorFilter,
    VectorHit,
    VectorPoint,
    VectorStore,
)

log = logging.getLogger(__name__)


@runtime_checkable
class Flushing(Protocol):
    """An engine that buffers writes and flushes them on its own schedule."""

    async def flush(self) -> None: ...


class SelfHealingVectorStore:
    """A `VectorStore` around one that can be closed and opened again (Qdrant Edge's shard fails
    every flush once another process has touched its files, until it is reopened)."""

    def __init__(self, inner: VectorStore) -> None:
        self.inner = inner
        self.engine = inner.engine
        self._write_error: str | None = None
        self._failed_after_reopen = False
        self._generation = 0
        self._reopening = asyncio.Lock()

    @property
    def store_id(self) -> str:
        return self.inner.store_id

    async def open(self) -> None:
        await self.inner.open()

    async def close(self) -> None:
        await self.inner.close()

    async def upsert(self, points: Sequence[VectorPoint]) -> None:
        await self._write(lambda: self.inner.upsert(points))

    async def delete(self, ids: Sequence[str]) -> None:
        await self._write(lambda: self.inner.delete(ids))

    async def set_superseded(self, ids: Sequence[str], superseded: bool) -> None:
        await self._write(lambda: self.inner.set_superseded(ids, superseded))

    async def _write(self, write: Callable[[], Awaitable[None]]) -> None:
        """Upserts, deletes and payload flags are idempotent by point id, so one retry after a
        reopen is safe."""
        generation = self._generation
        try:
            await write()
        except BackendUnavailable as exc:
            self._failed(exc, after_reopen=False)
            log.warning("vector write failed (%s); reopening the engine", exc)
        else:
            self._failed(None, after_reopen=False)
            return
        if not await self._reopen(generation):
            raise BackendUnavailable(
                "qdrant", f"writes fail and reopening failed: {self._write_error}"
            )
        try:
            await write()
        except BackendUnavailable as exc:
            self._failed(exc, after_reopen=True)
            raise
        self._failed(None, after_reopen=False)

    def _failed(self, error: Exception | None, after_reopen: bool) -> None:
        self._write_error = None if error is None else str(error)
        self._failed_after_reopen = after_reopen

    async def _reopen(self, generation: int) -> bool:
        """Close and open the engine, unless another caller already did since `generation`."""
        async with self._reopening:
            if self._generation != generation:
                return True
            try:
                await self.inner.close()
            except Exception as exc:  # a broken shard may fail its last flush; it is dropped anyway
                log.warning("closing the vector engine failed: %s", exc)
            try:
                await self.inner.open()
                if isinstance(self.inner, Flushing):  # clears a flush error of the old shard
                    await self.inner.flush()
                await self.inner.check()
            except Exception as exc:
                log.error("reopening the vector engine failed: %s", exc)
                return False
            self._generation += 1
            log.info("vector engine reopened")
            return True

    async def check(self) -> None:
        """Not ready while writes fail. A failing engine (a failed write, or its own check, e.g. a
        failed flush) is reopened, as a restart would, and must then pass its check; a write that
        failed on a freshly reopened engine keeps it not ready until a write succeeds."""
        if self._failed_after_reopen:
            raise BackendUnavailable("qdrant", f"the last write failed: {self._write_error}")
        if self._write_error is None:
            try:
                await self.inner.check()
                return
            except BackendUnavailable as exc:
                log.warning("vector engine check failed (%s); reopening it", exc)
        if not await self._reopen(self._generation):
            raise BackendUnavailable("qdrant", "the engine failed and could not be reopened")
        self._write_error = None
        await self.inner.check()

    async def search(
        self,
        vector: npt.NDArray[np.float32],
        flt: VectorFilter,
        limit: int,
        score_threshold: float | None = None,
        with_vectors: bool = False,
    ) -> list[VectorHit]:
        return await self.inner.search(vector, flt, limit, score_threshold, with_vectors)

    async def count(self, namespace: str | None = None, exact: bool = True) -> int:
        return await self.inner.count(namespace, exact)

    async def existing_ids(self, ids: Sequence[str]) -> set[str]:
        return await self.inner.existing_ids(ids)

    async def vectors_of(self, ids: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        return await self.inner.vectors_of(ids)

    async def all_ids(self, batch: int = 1000) -> list[str]:
        return await self.inner.all_ids(batch)

    async def status(self) -> IndexStatus:
        return await self.inner.status()
