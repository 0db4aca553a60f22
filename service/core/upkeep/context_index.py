"""The graph-contextual representation of memories: each memory's text joined with its strongest
LINK neighbours' text, kept in Neo4j (`context_text`, fulltext-indexed) and as a second vector,
refreshed in the background whenever a save, link or delete marks it pending."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncGenerator, Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from service.config import SearchSettings
from service.core.models import embedding_text, epoch_ms
from service.core.write.save_plan import row_point
from service.stores.embeddings import Embedder, SharedEmbedder
from service.stores.graph_store import GraphStore
from service.stores.vector_store import VectorStore

log = logging.getLogger(__name__)

BATCH = 64
MAX_PART_CHARS = 600
FAR_TEXT_CHARS = 1200
IDLE_S = 0.2
LEASE_S = 60.0

Part = tuple[int, str]


def context_text(own: Part, near: Sequence[Part], far: Sequence[Part] = ()) -> str:
    """The memory's text and its neighbours' (`near`, one link away; `far`, two links away,
    strongest first), each cut to MAX_PART_CHARS, in time order (a conversation reads as it
    happened; the memory's own text wins ties). A far part joins only while the whole stays
    within FAR_TEXT_CHARS, about the 256 tokens the embedder reads, so that the memory's own
    text is not pushed out of its context vector by memories it is not linked to."""
    parts = [(own[0], 0, own[1][:MAX_PART_CHARS])]
    parts += [(ms, 1, text[:MAX_PART_CHARS]) for ms, text in near]
    length = len("\n".join(text for _, _, text in parts if text))
    for ms, text in far:
        cut = text[:MAX_PART_CHARS]
        if cut and length + 1 + len(cut) <= FAR_TEXT_CHARS:
            parts.append((ms, 1, cut))
            length += 1 + len(cut)
    return "\n".join(text for _, _, text in sorted(parts) if text)


class ContextIndex:
    """Refreshes pending context representations in batches and keeps their vectors: with a
    `source` store (the memories' own vectors), the normalised mean of a memory's vector and its
    neighbours' (no model run); without, the embedding of the context text.

    Work is claimed in Neo4j, leased for `lease_s`, and only for the memories saved to `owner`
    (the memories' vector storage this process writes to): replicas sharing that storage split
    the backlog, and a process with other storage never takes it."""

    def __init__(
        self,
        graph: GraphStore,
        vectors: VectorStore,
        embedder: Embedder,
        neighbours: int,
        hops: int,
        owner: VectorStore,
        source: VectorStore | None = None,
        lease_s: float = LEASE_S,
    ) -> None:
        self.graph = graph
        self.vectors = vectors
        self.embedder = embedder
        self.neighbours = neighbours
        self.hops = hops
        self.owner = owner
        self.source = source
        self.lease_s = lease_s

    @classmethod
    def configured(
        cls,
        search: SearchSettings,
        graph: GraphStore,
        context_vectors: VectorStore,
        embedder: Embedder,
        vectors: VectorStore,
    ) -> ContextIndex:
        """The indexer `search` describes (`vectors`, the memories' own, are the source of the
        mean context vector)."""
        source = vectors if search.context_vector == "mean" else None
        return cls(
            graph,
            context_vectors,
            embedder,
            search.context_neighbours,
            search.context_hops,
            owner=vectors,
            source=source,
        )

    async def refresh(self, limit: int = BATCH) -> int:
        """Claim and refresh up to `limit` pending memories; returns how many were refreshed."""
        lease = uuid.uuid4().hex
        rows = await self.claim(lease, limit)
        if not rows:
            return 0
        texts = [_row_text(row) for row in rows]
        vectors = await self._vectors(rows, texts)
        await self.vectors.upsert([row_point(row, v) for row, v in zip(rows, vectors, strict=True)])
        items = [
            {"id": row["id"], "seq": row["seq"], "text": text}
            for row, text in zip(rows, texts, strict=True)
        ]
        await self.graph.write("context_mark_synced", lease=lease, items=items)
        return len(rows)

    async def claim(self, lease: str, limit: int) -> list[dict[str, Any]]:
        """Lease up to `limit` pending memories of this process's storage under `lease`."""
        return await self.graph.write(
            "context_claim",
            vector_store=self.owner.store_id,
            lease=lease,
            lease_ms=int(self.lease_s * 1000),
            limit=limit,
            neighbours=self.neighbours,
            hops=self.hops,
        )

    async def _vectors(
        self, rows: Sequence[dict[str, Any]], texts: Sequence[str]
    ) -> list[npt.NDArray[np.float32]]:
        """Mean vectors where the memory's own vector is stored; the text embedded otherwise."""
        stored: dict[str, npt.NDArray[np.float32]] = {}
        if self.source is not None:
            ids = [row["id"] for row in rows]
            ids += [n[3] for row in rows for n in row["neighbours"]]
            stored = await self.source.vectors_of(list(dict.fromkeys(ids)))
        missing = [i for i, row in enumerate(rows) if row["id"] not in stored]
        by_row: dict[int, npt.NDArray[np.float32]] = {}
        if missing:
            embedded = await self._embed([texts[i] for i in missing])
            by_row = {i: embedded[n] for n, i in enumerate(missing)}
        return [
            by_row[i] if i in by_row else mean_vector(row, stored) for i, row in enumerate(rows)
        ]

    async def _embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Behind requests when the embedder is shared with them."""
        if isinstance(self.embedder, SharedEmbedder):
            return await self.embedder.embed_background(texts)
        return await self.embedder.embed(texts)

    async def refresh_all(self, on_refreshed: Callable[[int], object] | None = None) -> int:
        """Refresh until nothing is pending (reconcile, tests, benchmarks); `on_refreshed` hears
        each batch's count."""
        total = 0
        while refreshed := await self.refresh():
            total += refreshed
            if on_refreshed is not None:
                on_refreshed(refreshed)
        return total

    async def backlog(self, namespace: str | None = None) -> int:
        """Memories of this process's storage waiting for their context (of one namespace, or
        all)."""
        rows = await self.graph.read(
            "context_backlog", namespace=namespace, vector_store=self.owner.store_id
        )
        return int(rows[0]["backlog"])

    async def run_forever(self) -> None:
        """The owned background task: refresh while there is work, otherwise wait a little."""
        while True:
            try:
                if await self.refresh():
                    continue
            except Exception:
                log.exception("context refresh failed; retrying")
            await asyncio.sleep(IDLE_S)


@contextlib.asynccontextmanager
async def background(index: ContextIndex) -> AsyncGenerator[asyncio.Task[None]]:
    """Run the context indexer for the lifetime of the block."""
    task = asyncio.create_task(index.run_forever(), name="context-indexer")
    try:
        yield task
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def mean_vector(
    row: dict[str, Any], stored: dict[str, npt.NDArray[np.float32]]
) -> npt.NDArray[np.float32]:
    """The normalised mean of a memory's stored vector and its neighbours' (those stored)."""
    parts = [stored[row["id"]], *(stored[n[3]] for n in row["neighbours"] if n[3] in stored)]
    total = np.sum(parts, axis=0)
    norm = float(np.linalg.norm(total))
    return (total / norm if norm > 0 else total).astype(np.float32)


def _row_text(row: dict[str, Any]) -> str:
    """A context_claim row's text; each neighbour is [ms, title, content, id, links away]."""
    own = (epoch_ms(row["created_at"]), embedding_text(row["title"], row["content"] or ""))
    near: list[Part] = []
    far: list[Part] = []
    for ms, title, content, _, away in row["neighbours"]:
        (near if away == 1 else far).append((ms, embedding_text(title, content or "")))
    return context_text(own, near, far)
