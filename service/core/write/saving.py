"""memory_save: the upsert of one memory by key or id, with its links and supersessions, in the
two-store order (Neo4j with the vector pending, Qdrant, then synced: that last mark is written
in the background, coalesced), and the near-duplicates of what was saved."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from service.config import Settings
from service.core.hydration import hydrated_rows, views_in_order
from service.core.models import SaveInput, now_utc
from service.core.results import MemoryView, SaveResult, SimilarMemory
from service.core.stores import Stores
from service.core.write.committed import CommittedWork
from service.core.write.save_plan import (
    SavePlan,
    check_sizes,
    existing_target,
    link_rows,
    plan_memory,
    stored_fields,
    vector_point,
)
from service.core.write.supersede import (
    flag_vectors,
    record_supersession,
    refuse_cycle,
    supersede_targets,
    superseders,
)
from service.core.write.synced_marks import SyncedMarks
from service.errors import BackendUnavailable, Conflict, NotFound
from service.stores.embeddings import Embedder, Vectors
from service.stores.graph_store import Tx
from service.stores.link_graph import GraphWrite
from service.stores.vector_store import VectorFilter, VectorPoint

SIMILAR_LIMIT = 10

Cleanup = Callable[[str, Sequence[str]], Awaitable[object]]


@dataclass(frozen=True)
class _Written:
    """What the save's transaction wrote."""

    vector_pending: bool
    superseded: bool
    db_size_bytes: int
    pending_state: str  # what marks this save's vector pending in Neo4j
    memory: MemoryView  # the memory as this transaction stored it
    flagged: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])
    graph: GraphWrite | None = None  # what it wrote of the graph (none with supersessions)


class MemorySaver:
    """Saves one memory at a time (contract §4 memory_save)."""

    def __init__(
        self,
        settings: Settings,
        stores: Stores,
        cleanup: Cleanup,
        committed: CommittedWork,
    ) -> None:
        self.settings = settings
        self.stores = stores
        self._cleanup = cleanup
        self.committed = committed
        self.marks = SyncedMarks(stores.graph)

    async def save(self, namespace: str, data: SaveInput) -> SaveResult:
        """Upsert by (namespace, key) or id; vectorised and indexed before it returns."""
        check_sizes(self.settings.limits, data)
        started = _Started(self.stores.embedder)
        try:
            plan, written, vector = await self.stores.graph.transaction(
                lambda tx: self._write(tx, namespace, data, started)
            )
            self._advance_link_graph(namespace, written)
            return await self._finish(namespace, plan, written, vector, started.similar)
        finally:  # a failed save leaves nothing it started behind unawaited
            await started.settle()

    async def update(
        self, namespace: str, ref: str, merge: Callable[[MemoryView], SaveInput]
    ) -> SaveResult:
        """The memory `ref` (key or id) saved as `merge` makes it from what is stored, read
        under the memory's write lock in the save's transaction (an atomic partial update)."""
        started = _Started(self.stores.embedder)

        async def locked_write(tx: Tx) -> tuple[SavePlan, _Written, Vectors | None]:
            locked = await tx.run("memory_lock_ref", ref=ref, namespace=namespace)
            if not locked:
                raise NotFound(f"Memory not found: {ref}")
            memory_id = locked[0]["id"]
            rows = hydrated_rows(
                await tx.run("memory_hydrate", ids=[memory_id], namespace=namespace)
            )
            data = merge(views_in_order(rows, [memory_id], sort=False)[0])
            check_sizes(self.settings.limits, data)
            return await self._write(tx, namespace, data, started)

        try:
            plan, written, vector = await self.stores.graph.transaction(locked_write)
            self._advance_link_graph(namespace, written)
            return await self._finish(namespace, plan, written, vector, started.similar)
        finally:
            await started.settle()

    def _advance_link_graph(self, namespace: str, written: _Written) -> None:
        """The namespace's link graph snapshot in process, advanced by the committed save."""
        if written.graph is not None:
            self.stores.graph.link_graphs.advance(namespace, written.graph)

    async def _finish(
        self,
        namespace: str,
        plan: SavePlan,
        written: _Written,
        vector: Vectors | None,
        similar: asyncio.Task[list[SimilarMemory]] | None,
    ) -> SaveResult:
        """Qdrant after Neo4j (`committed`: to its end, even if the caller is cancelled); then
        the near-duplicates (`similar`: looked up while the transaction committed), and an LRU
        cleanup when over budget."""
        own = await self.committed.finish(self._write_vector(namespace, plan, written, vector))
        near = await similar if similar is not None else await self._similar(namespace, plan, own)
        if written.db_size_bytes > self.settings.memory.max_size_bytes:  # LRU down to 85%
            await self._cleanup(namespace, [plan.id])
        return {
            "success": True,
            "memory": written.memory,
            "created": plan.created,
            "similar": near,
        }

    async def _write_vector(
        self, namespace: str, plan: SavePlan, written: _Written, vector: Vectors | None
    ) -> npt.NDArray[np.float32]:
        """The vector, the superseded flags, the pending mark queued; the memory's vector.
        Unchanged text is not embedded again: its stored vector finds the near-duplicates."""
        if self.marks.holds(plan.id, plan.hash):  # saved again before its mark was written
            written = replace(written, vector_pending=False)
        own = vector[0] if vector is not None else await self._unchanged_vector(plan, written)
        if written.vector_pending:
            await self._upsert(vector_point(namespace, plan, own, written.superseded))
        stores = [self.stores.vectors, self.stores.context_vectors]
        await flag_vectors(self.stores.graph, stores, written.flagged, superseded=True)
        if written.vector_pending:
            self.marks.add(namespace, plan.id, plan.hash, written.pending_state)
        return own

    async def _upsert(self, point: VectorPoint) -> None:
        """The vector of a memory Neo4j holds with its vector pending; a failure says so."""
        try:
            await self.stores.vectors.upsert([point])
        except BackendUnavailable as exc:
            raise BackendUnavailable(
                exc.backend,
                f"{exc.detail} (memory {point.id} is stored, its vector pending: saving it "
                "again, or the next reconcile, writes the vector)",
            ) from exc

    async def _unchanged_vector(self, plan: SavePlan, written: _Written) -> npt.NDArray[np.float32]:
        """The vector of text that did not change: the stored one, unless it may be missing."""
        if not written.vector_pending:
            stored = await self.stores.vectors.vectors_of([plan.id])
            if plan.id in stored:
                return stored[plan.id]
        return (await self.stores.embedder.embed([plan.vector_text]))[0]

    def _plan(self, namespace: str, data: SaveInput, found: dict[str, Any]) -> SavePlan:
        """What to store, from the memory the save updates (None: a create)."""
        existing = existing_target(namespace, data, found)
        plan = plan_memory(
            namespace,
            data,
            memory_id=existing["id"] if existing else (data.id or str(uuid.uuid4())),
            key=data.key or (existing["key"] if existing else None),
            created_at=existing["created_at"] if existing else now_utc(),
            embedder_model=self.stores.embedder.model,
            dimensions=self.stores.embedder.dimensions,
        )
        by_key = found["by_key"]
        if by_key is not None and by_key["id"] != plan.id:
            raise Conflict(f"Key '{plan.key}' is already used by memory {by_key['id']}")
        if existing is None:
            return plan
        plan.fields["previous_hash"] = existing["content_hash"]
        return replace(plan, created=False)

    async def _write(
        self,
        tx: Tx,
        namespace: str,
        data: SaveInput,
        started: _Started,
    ) -> tuple[SavePlan, _Written, Vectors | None]:
        """One transaction: find the memory, plan, write it with its links and supersessions,
        and read it back as stored (the save's answer). Changed text is embedded meanwhile
        (`started`, kept across retries); the transaction commits only once it is done, so a
        failed embedding writes nothing. The near-duplicates of a save that supersedes nothing
        are looked up while it commits (they exclude the memory, all the commit changes)."""
        started.similar = None
        found = await tx.run(
            "memory_find_for_save", id=data.id or "", namespace=namespace, key=data.key or ""
        )
        plan = self._plan(namespace, data, found[0])
        embedding = None
        if plan.hash != plan.fields.get("previous_hash"):
            embedding = started.embedding(plan.vector_text)
        pending = f"pending:{uuid.uuid4().hex}"
        rows = await tx.run(
            "memory_upsert",
            pending=pending,
            vector_store=self.stores.vectors.store_id,
            id=plan.id,
            now=now_utc(),
            created_at=plan.created_at,
            content_hash=plan.hash,
            **stored_fields(plan),
        )
        row = rows[0]
        before = tuple(found[0]["graph_version"])
        graph: GraphWrite | None = GraphWrite(before, tuple(row["graph_version"]), row["walk"])
        if data.links:  # unknown targets raise, and the transaction writes nothing
            linked = await tx.run(
                "link_upsert",
                source_id=plan.id,
                namespace=namespace,
                now=now_utc(),
                links=link_rows(data.links),
            )
            if missing := linked[0]["missing"]:
                raise NotFound(f"Link target(s) not found: {', '.join(dict.fromkeys(missing))}")
            graph = graph.then(GraphWrite.of_links(linked[0], plan.id))
        flagged = await self._supersede(tx, namespace, data.supersedes, plan.id)
        stored = hydrated_rows(await tx.run("memory_hydrate", ids=[plan.id], namespace=namespace))
        vector = await embedding if embedding is not None else None  # its failure rolls back
        if vector is not None and not data.supersedes:
            started.look_up(self._similar(namespace, plan, vector[0]))
        written = _Written(
            bool(row["vector_pending"]),
            bool(row["superseded"]),
            int(row["db_size_bytes"]),
            pending,
            views_in_order(stored, [plan.id], sort=True)[0],
            flagged,
            None if data.supersedes else graph,
        )
        return plan, written, vector

    async def _supersede(
        self, tx: Tx, namespace: str, refs: Sequence[str], new_id: str
    ) -> list[dict[str, Any]]:
        if not refs:
            return []
        resolved = await _resolve_in(tx, namespace, refs)
        old_ids, missing = supersede_targets(new_id, refs, resolved)
        if missing:
            raise NotFound(f"Superseded memory(ies) not found: {', '.join(missing)}")
        ref_of = {memory_id: ref for ref, memory_id in resolved.items()}
        refuse_cycle(new_id, old_ids, await superseders(tx, [new_id]), ref_of)
        flagged = await record_supersession(tx, [(new_id, old_ids)])
        # A memory saved just before, whose mark is still queued, has its vector in Qdrant: the
        # flag written after this commit is final, so its pending mark can be cleared too.
        return [
            {
                **row,
                "was_synced": row["was_synced"] or self.marks.holds(row["id"], row["content_hash"]),
            }
            for row in flagged
        ]

    async def _similar(
        self, namespace: str, plan: SavePlan, vector: npt.NDArray[np.float32]
    ) -> list[SimilarMemory]:
        """Current memories of the namespace whose vector is within the duplicate threshold of
        the saved one's, or whose content is the same; best first (then key)."""
        threshold = self.settings.memory.duplicate_threshold
        hits = await self.stores.vectors.search(
            vector, VectorFilter(namespace), SIMILAR_LIMIT + 1, threshold
        )
        cosines = {hit.id: hit.score for hit in hits if hit.id != plan.id}
        rows = await self.stores.graph.read(
            "memory_similar",
            ids=list(cosines),
            namespace=namespace,
            id=plan.id,
            text_sha256=plan.fields["text_sha256"],
            limit=SIMILAR_LIMIT,
        )
        similar: list[SimilarMemory] = [
            {
                "id": row["id"],
                "key": row["key"],
                "score": 1.0 if row["same_text"] else round(min(cosines[row["id"]], 1.0), 4),
            }
            for row in rows
        ]
        similar.sort(key=lambda item: (-item["score"], item["key"]))
        return similar[:SIMILAR_LIMIT]


class _Started:
    """What a save starts beside its transaction, kept across the driver's retries: one
    embedding per text, and the near-duplicates lookup of the latest attempt (`similar`)."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._embeddings: dict[str, asyncio.Task[Vectors]] = {}
        self._lookups: list[asyncio.Task[list[SimilarMemory]]] = []
        self.similar: asyncio.Task[list[SimilarMemory]] | None = None

    def embedding(self, text: str) -> asyncio.Task[Vectors]:
        """The embedding of `text`, started by the first caller."""
        if text not in self._embeddings:
            self._embeddings[text] = asyncio.create_task(self._embedder.embed([text]))
        return self._embeddings[text]

    def look_up(self, similar: Coroutine[Any, Any, list[SimilarMemory]]) -> None:
        self.similar = asyncio.create_task(similar)
        self._lookups.append(self.similar)

    async def settle(self) -> None:
        """Cancel what the save did not use, and wait for everything to end."""
        tasks: list[asyncio.Task[Any]] = [*self._embeddings.values(), *self._lookups]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _resolve_in(tx: Tx, namespace: str, refs: Sequence[str]) -> dict[str, str]:
    """Ref (id or key) → memory id for the refs that exist in the namespace."""
    rows = await tx.run("memory_resolve_refs", ids=list(refs), keys=list(refs), namespace=namespace)
    return {row["ref"]: row["id"] for row in rows}
