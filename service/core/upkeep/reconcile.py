"""Reconcile of the two stores: finish vector writes and deletes a crash left pending in Neo4j,
and (with `full`) repair any drift between Neo4j's memories and Qdrant's points and drop the
fulltext indexes of namespaces that hold no memory."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from service.core.models import embedding_text
from service.core.upkeep.context_index import ContextIndex
from service.core.write.save_plan import row_point
from service.stores.embeddings import Embedder
from service.stores.graph_store import GraphStore
from service.stores.vector_store import VectorStore

BATCH = 256
DRIFT_BATCH = 1000
ADOPT_BATCH = 5000


@dataclass(frozen=True)
class ReconcileReport:
    vectors_written: int
    vectors_deleted: int
    orphans_deleted: int
    missing_vectors: int
    keyword_indexes_dropped: int = 0


class Reconciler:
    """Brings Qdrant in line with Neo4j, which is the source of truth."""

    def __init__(
        self,
        graph: GraphStore,
        vectors: VectorStore,
        embedder: Embedder,
        context: ContextIndex | None = None,
    ) -> None:
        self.graph = graph
        self.vectors = vectors
        self.embedder = embedder
        self.context = context

    async def run(
        self,
        full: bool = False,
        drain_context: bool = True,
        written_so_far: Callable[[int], None] | None = None,
        marked_missing: Callable[[int], None] | None = None,
    ) -> ReconcileReport:
        """Finish pending vector writes and deletes; with `full`, also repair any drift and drop
        the keyword indexes of namespaces left empty; with `drain_context`, refresh every
        pending context representation before returning (start-up leaves that backlog to the
        background indexer: after a bulk load it takes minutes). `written_so_far` is told how
        many vectors each batch wrote; `marked_missing`, how many more the drift repair left to
        write (with `full`)."""
        written = await self._finish_pending_vectors(written_so_far)
        deleted = await self._finish_tombstones()
        orphans = missing = dropped = 0
        if full:
            orphans, missing = await self._repair_drift()
            if marked_missing is not None:
                marked_missing(missing)
            written += await self._finish_pending_vectors(written_so_far)
            dropped = await self.graph.drop_empty_keyword_indexes()
        if self.context is not None:
            if full:
                await self._repair_context_drift(self.context.vectors)
            if drain_context:
                await self.context.refresh_all()
        return ReconcileReport(written, deleted, orphans, missing, dropped)

    async def vectors_elsewhere(self) -> dict[str, int]:
        """`other_storages` when this vector storage is empty, else nothing (and no read): after
        a change of embedding model (one collection per model), vector search finds the memories
        of the old collection only once they are adopted (`adopt`), re-imported or saved again."""
        if await self.vectors.count(exact=False):  # the engine's figure: no points read
            return {}
        return await self.other_storages()

    async def other_storages(self) -> dict[str, int]:
        """The vector storages other than this one that memories' vectors were written to, with
        how many memories each holds, most first."""
        rows = await self.graph.read("vector_storages_other", vector_store=self.vectors.store_id)
        return {row["storage"]: row["memories"] for row in rows}

    async def pending_vectors(self) -> int:
        """How many of this storage's memories wait for their vector (what `run` writes)."""
        rows = await self.graph.read("vector_pending_count", vector_store=self.vectors.store_id)
        return int(rows[0]["pending"])

    async def adopt(self, storage: str) -> int:
        """Move every memory of the vector storage `storage` to this one, its vector and context
        pending: `run` then embeds them with this storage's model and writes them here. How
        many moved."""
        adopted = 0
        store = self.vectors.store_id
        while True:
            rows = await self.graph.write(
                "vector_storage_adopt", storage=storage, vector_store=store, limit=ADOPT_BATCH
            )
            moved = int(rows[0]["adopted"])
            adopted += moved
            if moved < ADOPT_BATCH:
                return adopted

    async def _finish_pending_vectors(self, written_so_far: Callable[[int], None] | None) -> int:
        written = 0
        store = self.vectors.store_id
        while rows := await self.graph.read("vector_pending", limit=BATCH, vector_store=store):
            texts = [embedding_text(row["title"] or "", row["content"] or "") for row in rows]
            vectors = await self.embedder.embed(texts)
            points = [row_point(row, vectors[i]) for i, row in enumerate(rows)]
            await self.vectors.upsert(points)
            items = [{"id": row["id"], "content_hash": row["content_hash"]} for row in rows]
            await self.graph.write("vector_mark_synced", items=items)
            written += len(rows)
            if written_so_far is not None:
                written_so_far(len(rows))
        return written

    async def _finish_tombstones(self) -> int:
        deleted = 0
        while rows := await self.graph.read("tombstones_list", limit=BATCH):
            ids = [row["id"] for row in rows]
            await self.vectors.delete(ids)
            if self.context is not None:
                await self.context.vectors.delete(ids)
            await self.graph.write("tombstones_clear", ids=ids)
            deleted += len(ids)
        return deleted

    async def _repair_drift(self) -> tuple[int, int]:
        """Delete vectors without a memory; mark this storage's memories without a vector as
        pending."""
        vector_ids, orphans = await self._orphans(self.vectors)
        store = self.vectors.store_id
        rows = await self.graph.write("vector_mark_missing", ids=vector_ids, vector_store=store)
        return orphans, int(rows[0]["marked"]) if rows else 0

    async def _repair_context_drift(self, vectors: VectorStore) -> None:
        """The same for context vectors: orphans deleted, missing ones refreshed."""
        vector_ids, _ = await self._orphans(vectors)
        store = self.vectors.store_id
        await self.graph.write("context_mark_missing", ids=vector_ids, vector_store=store)

    async def _orphans(self, vectors: VectorStore) -> tuple[list[str], int]:
        """Every vector id of the store, after deleting those whose memory is gone."""
        vector_ids = await vectors.all_ids()
        orphans: list[str] = []
        for start in range(0, len(vector_ids), DRIFT_BATCH):
            chunk = vector_ids[start : start + DRIFT_BATCH]
            rows = await self.graph.read("memory_ids_existing", ids=chunk)
            known = {row["id"] for row in rows}
            orphans.extend(i for i in chunk if i not in known)
        await vectors.delete(orphans)
        gone = set(orphans)
        return [i for i in vector_ids if i not in gone], len(orphans)
