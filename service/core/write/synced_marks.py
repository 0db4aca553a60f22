"""The last step of a save, off its path: clearing the pending mark of a vector that Qdrant
already holds. Marks queued within `delay_s` of each other are written together: one statement
per namespace, run side by side, so a namespace busy with writes (each takes its namespace's
lock) delays only its own marks.

A crash before that write only leaves those memories pending: reconcile (at start-up) writes
their vectors again, which is idempotent, so nothing acknowledged is lost and the stores agree.
"""

from __future__ import annotations

import asyncio
import logging

from service.stores.graph_store import GraphStore

log = logging.getLogger(__name__)

DELAY_S = 0.05


class SyncedMarks:
    """Coalesces `vector_mark_synced` writes; one flusher task at a time, while marks wait."""

    def __init__(self, graph: GraphStore, delay_s: float = DELAY_S) -> None:
        self._graph = graph
        self._delay_s = delay_s
        # memory id → (its namespace, content hash of the vector written, the pending state its
        # save set)
        self._queued: dict[str, tuple[str, str, str]] = {}
        self._writing: dict[str, tuple[str, str, str]] = {}
        self._flusher: asyncio.Task[None] | None = None
        self._delaying = False  # the flusher waits out `delay_s` (no write under way)
        self._write_lock = asyncio.Lock()

    def add(self, namespace: str, memory_id: str, digest: str, state: str) -> None:
        """Queue a memory whose vector (of content hash `digest`) is in Qdrant; its mark is
        cleared only while Neo4j still holds the pending `state` its save wrote."""
        self._queued[memory_id] = (namespace, digest, state)
        if self._queued and (self._flusher is None or self._flusher.done()):
            self._flusher = asyncio.create_task(self._flush_while_queued(), name="synced-marks")

    def holds(self, memory_id: str, digest: str) -> bool:
        """Whether Qdrant has this memory's vector for that content while Neo4j may still say
        pending (its mark is queued or being written)."""
        held = (self._queued.get(memory_id), self._writing.get(memory_id))
        return any(item is not None and item[1] == digest for item in held)

    async def _flush_while_queued(self) -> None:
        while self._queued:
            self._delaying = True
            try:
                await asyncio.sleep(self._delay_s)
            finally:
                self._delaying = False
            await self.flush()

    async def flush(self) -> int:
        """Write every queued mark now, after any write already under way, so that every mark
        queued before the call is written when it returns; the number this call wrote. On a
        failure they stay pending in Neo4j (reconcile finishes them) and the failure is logged."""
        async with self._write_lock:
            return await self._write_queued()

    async def _write_queued(self) -> int:
        items, self._queued = self._queued, {}
        if not items:
            return 0
        self._writing = items
        by_namespace: dict[str, list[dict[str, str]]] = {}
        for memory_id, (namespace, digest, state) in items.items():
            row = {"id": memory_id, "content_hash": digest, "state": state}
            by_namespace.setdefault(namespace, []).append(row)
        try:
            await asyncio.gather(*(self._write(rows) for rows in by_namespace.values()))
        finally:
            self._writing = {}
        return len(items)

    async def _write(self, rows: list[dict[str, str]]) -> None:
        """One namespace's marks; on a failure they stay pending (reconcile finishes them)."""
        try:
            await self._graph.write("vector_mark_synced", items=rows)
        except Exception:
            log.exception("clearing %d pending vector marks failed; reconcile will", len(rows))

    async def close(self) -> None:
        """Write what is queued now and wait for the flusher (service shutdown): a flusher
        waiting out its delay stops waiting; one writing finishes its write."""
        flusher = self._flusher
        if flusher is not None and self._delaying:
            flusher.cancel()
        await self.flush()
        if self._flusher is not None:
            await asyncio.gather(self._flusher, return_exceptions=True)
