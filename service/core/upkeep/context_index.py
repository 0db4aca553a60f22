"""The graph-contextual representation of memories: each memory's text joined with its strongest
LINK neighbours' text, kept in Neo4j (`context_text`, fulltext-indexed) and as a second vector,
refreshed in the background whenever a save, link or delete marks it pending."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from service.config import SearchSettings
from service.core.models import content_hash, embedding_text, epoch_ms
from service.core.write.save_plan import row_payload, row_point
from service.stores.embeddings import Embedder, SharedEmbedder
from service.stores.graph_store import GraphStore
from service.stores.vector_store import VectorStore

log = logging.getLogger(__name__)

BATCH = 64
EMBED_BATCH = 8  # the second pass's batch: new pending memories wait for at most one
PENDING, APPROXIMATE, OK = "pending", "approximate", "ok"
MAX_PART_CHARS = 600
FAR_TEXT_CHARS = 1200
IDLE_S = 0.2
LEASE_S = 60.0
# How long a memory whose own vector is still being written (plain 'pending': a batch, a
# supersession, a reconcile) waits for it before its context is made without it; a batch of 500
# writes its vectors within ~10 s, and one whose write failed waits for reconcile.
VECTOR_WAIT_S = 30.0
# A context that has waited longer than this is overdue: overdue ones take up to half of each
# claim, the longest wait first, and the most recent memories the rest, so a steady stream of new
# memories neither waits behind a bulk load's backlog nor keeps older ones waiting for ever.
OVERDUE_S = 60.0

Part = tuple[int, str]


@dataclass(frozen=True)
class Refreshed:
    """One claimed memory's new context: its text, state, the vector to write (None: the stored
    one is the embedding of this very text and payload) and the hash of what an embedded vector
    was made from (None for a mean vector, which no later refresh may keep)."""

    row: dict[str, Any]
    text: str
    state: str
    vector: npt.NDArray[np.float32] | None
    embedded_hash: str | None


@dataclass(frozen=True)
class Backlog:
    """Memories waiting for their context: `pending` (no current text), `approximate` (the
    vector still a mean), and how long the oldest has waited."""

    pending: int
    approximate: int
    oldest_wait_s: float

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> Backlog:
        wait_s = round(max(0, int(row["oldest_wait_ms"])) / 1000, 1)
        return cls(int(row["pending"]), int(row["approximate"]), wait_s)

    @property
    def total(self) -> int:
        return self.pending + self.approximate


def context_text(own: Part, near: Sequence[Part], far: Sequence[Part] = ()) -> str:
    """The memory's text and its neighbours' (`near`, one link away; `far`, two links away,
    strongest first), each cut to MAX_PART_CHARS, in time order (a conversation reads as it
    happened; the memory's own text wins ties). A far part joins only while the whole stays
    within FAR_TEXT_CHARS, about the 256 tokens the embedder reads, so that the memory's own
    text is not pushed out of its context vector by memories it is not linked to."""
    parts = [(own[0], 0, own[1][:MAX_PART_CHARS])]
    parts += [(ms, 1, text[:MAX_PART_CHARS]) for ms, text in near]
    parts += [(far[i][0], 1, far[i][1][:MAX_PART_CHARS]) for i in joined_far(own, near, far)]
    return "\n".join(text for _, _, text in sorted(parts) if text)


def joined_far(own: Part, near: Sequence[Part], far: Sequence[Part]) -> list[int]:
    """The far parts (their indexes) the context text joins: in order, each while the whole,
    every part cut to MAX_PART_CHARS, stays within FAR_TEXT_CHARS."""
    texts = [text[:MAX_PART_CHARS] for _, text in (own, *near)]
    length = len("\n".join(text for text in texts if text))
    joined: list[int] = []
    for i, (_, text) in enumerate(far):
        cut = text[:MAX_PART_CHARS]
        if cut and length + 1 + len(cut) <= FAR_TEXT_CHARS:
            joined.append(i)
            length += 1 + len(cut)
    return joined


def read_whole(own: Part, near: Sequence[Part], far: Sequence[Part] = ()) -> bool:
    """Whether the model reads the context text whole: none of its parts cut to MAX_PART_CHARS
    and the text within FAR_TEXT_CHARS (far parts it leaves out do not count). A longer
    context's embedding is of its first parts only, so its vector stays the mean of every
    part's stored vector."""
    texts = [text for _, text in (own, *near)] + [far[i][1] for i in joined_far(own, near, far)]
    return all(len(text) <= MAX_PART_CHARS for text in texts) and (
        len(context_text(own, near, far)) <= FAR_TEXT_CHARS
    )


class ContextIndex:
    """Refreshes pending context representations in batches, in two passes. The first needs no
    model run: the context text, and as vector the normalised mean of the memory's stored vector
    and its neighbours' (the embedding of the text where the memory's own vector is not stored
    yet). A context the model reads whole weighs each part by its characters and waits
    (`approximate`) for the second pass, behind requests on the embedder, to replace that vector
    with the embedding of the text (`ok`); a longer one keeps the equal mean (`ok`). With
    `mean_only` every context keeps the equal mean.

    Work is claimed in Neo4j, leased for `lease_s`, and only for the memories saved to `owner`
    (the memories' vector storage this process writes to, and the source of the mean vectors):
    replicas sharing that storage split the backlog, and a process with other storage never
    takes it."""

    def __init__(
        self,
        graph: GraphStore,
        vectors: VectorStore,
        embedder: Embedder,
        neighbours: int,
        hops: int,
        owner: VectorStore,
        mean_only: bool = False,
        lease_s: float = LEASE_S,
    ) -> None:
        self.graph = graph
        self.vectors = vectors
        self.embedder = embedder
        self.neighbours = neighbours
        self.hops = hops
        self.owner = owner
        self.mean_only = mean_only
        self.lease_s = lease_s
        self.counts = {"approximated": 0, "averaged": 0, "embedded": 0, "kept": 0}

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
        mean context vectors)."""
        return cls(
            graph,
            context_vectors,
            embedder,
            search.context_neighbours,
            search.context_hops,
            owner=vectors,
            mean_only=search.context_vector == "mean",
        )

    async def refresh(self, limit: int = BATCH) -> int:
        """Claim up to `limit` memories of either pass, the first pass first; returns how many
        were refreshed."""
        return await self.approximate(limit) or await self.embed(min(limit, EMBED_BATCH))

    async def approximate(self, limit: int = BATCH) -> int:
        """The first pass over up to `limit` pending memories: current text, mean vector; a
        memory whose text and payload are those its stored vector was embedded from keeps it
        and is done (a neighbour's new weak link, say, changed nothing it reads)."""
        lease = uuid.uuid4().hex
        rows = await self.claim(lease, limit, PENDING)
        if not rows:
            return 0
        parts = [_row_parts(row) for row in rows]
        texts = [context_text(*part) for part in parts]
        whole = [not self.mean_only and read_whole(*part) for part in parts]
        hashes = [self.embedded_hash(row, text) for row, text in zip(rows, texts, strict=True)]
        kept = [whole[i] and row.get("embedded_hash") == hashes[i] for i, row in enumerate(rows)]
        changed = [i for i, keep in enumerate(kept) if not keep]
        vectors = await self._mean_vectors(
            [rows[i] for i in changed], [texts[i] for i in changed], [whole[i] for i in changed]
        )
        mean = dict(zip(changed, vectors, strict=True))
        await self._store(
            lease,
            [
                Refreshed(rows[i], texts[i], OK, None, hashes[i])
                if kept[i]
                else Refreshed(rows[i], texts[i], APPROXIMATE if whole[i] else OK, mean[i], None)
                for i in range(len(rows))
            ],
        )
        self.counts["kept"] += sum(kept)
        self.counts["approximated"] += sum(whole[i] for i in changed)
        self.counts["averaged"] += sum(not whole[i] for i in changed)
        return len(rows)

    async def embed(self, limit: int = BATCH) -> int:
        """The second pass over up to `limit` approximate memories: the text's embedding."""
        if self.mean_only:
            return 0
        lease = uuid.uuid4().hex
        rows = await self.claim(lease, limit, APPROXIMATE)
        if not rows:
            return 0
        texts = [_row_text(row) for row in rows]
        vectors = list(await self._embed(texts))
        await self._store(
            lease,
            [
                Refreshed(row, text, OK, vector, self.embedded_hash(row, text))
                for row, text, vector in zip(rows, texts, vectors, strict=True)
            ],
        )
        self.counts["embedded"] += len(rows)
        return len(rows)

    def embedded_hash(self, row: dict[str, Any], text: str) -> str:
        """What a context vector embedded from `text` depends on: the text, the point's payload,
        the model and the storage it is written to."""
        model = f"{self.embedder.model}@{self.vectors.store_id}"
        return content_hash(text, row_payload(row), model)

    async def _store(self, lease: str, refreshed: Sequence[Refreshed]) -> None:
        """Write the new context vectors, then the texts, states and hashes of the memories not
        marked again meanwhile, releasing the lease."""
        points = [row_point(r.row, r.vector) for r in refreshed if r.vector is not None]
        if points:
            await self.vectors.upsert(points)
        items = [
            {
                "id": r.row["id"],
                "seq": r.row["seq"],
                "text": r.text,
                "state": r.state,
                "embedded_hash": r.embedded_hash,
            }
            for r in refreshed
        ]
        await self.graph.write("context_mark_synced", lease=lease, items=items)

    async def claim(self, lease: str, limit: int, state: str = PENDING) -> list[dict[str, Any]]:
        """Lease up to `limit` memories of this process's storage in context `state`: overdue
        ones (OVERDUE_S) for up to half of them, the longest wait first, then the most recent."""
        params = claim_params(self.owner.store_id, state, lease, limit, self.lease_s)
        return await self.graph.write(
            "context_claim", **params, neighbours=self.neighbours, hops=self.hops
        )

    async def _mean_vectors(
        self, rows: Sequence[dict[str, Any]], texts: Sequence[str], weighted: Sequence[bool]
    ) -> list[npt.NDArray[np.float32]]:
        """Mean vectors where the memory's own vector is stored, `weighted` ones by
        `part_weights`; the text embedded otherwise."""
        if not rows:
            return []
        ids = [row["id"] for row in rows]
        ids += [n[3] for row in rows for n in row["neighbours"]]
        stored = await self.owner.vectors_of(list(dict.fromkeys(ids)))
        missing = [i for i, row in enumerate(rows) if row["id"] not in stored]
        by_row: dict[int, npt.NDArray[np.float32]] = {}
        if missing:
            embedded = await self._embed([texts[i] for i in missing])
            by_row = {i: embedded[n] for n, i in enumerate(missing)}
        return [
            by_row[i]
            if i in by_row
            else mean_vector(row, stored, part_weights(row) if weighted[i] else None)
            for i, row in enumerate(rows)
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
        """Memories of this process's storage whose context is not final yet (of one
        namespace, or all)."""
        return (await self.backlog_details(namespace)).total

    async def backlog_details(self, namespace: str | None = None) -> Backlog:
        """The backlog of this process's storage by pass, and the oldest wait."""
        rows = await self.graph.read(
            "context_backlog", namespace=namespace, vector_store=self.owner.store_id
        )
        return Backlog.of(rows[0])

    async def run_forever(self) -> None:
        """The owned background task: refresh while there is work, otherwise wait until a
        write of this process marks contexts pending, or IDLE_S (other processes' writes)."""
        woken = asyncio.Event()
        self.graph.on_context_marked(woken.set)
        while True:
            woken.clear()
            try:
                if await self.refresh():
                    continue
            except Exception:
                log.exception("context refresh failed; retrying")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(woken.wait(), IDLE_S)


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
    row: dict[str, Any],
    stored: dict[str, npt.NDArray[np.float32]],
    weights: Mapping[str, float] | None = None,
) -> npt.NDArray[np.float32]:
    """The normalised mean of a memory's stored vector and its neighbours' (those stored), each
    weighted by `weights` (by id; equal without)."""
    ids = [row["id"], *(n[3] for n in row["neighbours"] if n[3] in stored)]
    parts = [stored[id_] * (1.0 if weights is None else weights[id_]) for id_ in ids]
    total = np.sum(parts, axis=0)
    norm = float(np.linalg.norm(total))
    return (total / norm if norm > 0 else total).astype(np.float32)


def part_weights(row: dict[str, Any]) -> dict[str, float]:
    """Each part's weight in the mean of a context the model reads whole: its characters, as the
    model reads them, a neighbour's at most the memory's own (a short turn between long ones
    stays itself); a far part the text leaves out weighs nothing."""
    own_part, near, far = _row_parts(row)
    own = max(1, len(own_part[1]))
    far_ids = [n[3] for n in row["neighbours"] if n[4] != 1]
    joined = {far_ids[i] for i in joined_far(own_part, near, far)}
    weights = {row["id"]: float(own)}
    for _, title, content, id_, away in row["neighbours"]:
        read = away == 1 or id_ in joined
        weights[id_] = float(min(own, len(embedding_text(title, content or "")))) if read else 0.0
    return weights


def _row_parts(row: dict[str, Any]) -> tuple[Part, list[Part], list[Part]]:
    """A context_claim row's parts: its own, one link away and two links away; each neighbour is
    [ms, title, content, id, links away]."""
    own = (epoch_ms(row["created_at"]), embedding_text(row["title"], row["content"] or ""))
    near: list[Part] = []
    far: list[Part] = []
    for ms, title, content, _, away in row["neighbours"]:
        (near if away == 1 else far).append((ms, embedding_text(title, content or "")))
    return own, near, far


def _row_text(row: dict[str, Any]) -> str:
    """A context_claim row's text."""
    return context_text(*_row_parts(row))


def claim_params(
    vector_store: str, state: str, lease: str, limit: int, lease_s: float
) -> dict[str, Any]:
    """context_claim's parameters but the neighbours it reads: `limit` memories of `vector_store`
    in context `state`, leased as `lease` for `lease_s`, half of the places for overdue ones."""
    return {
        "vector_store": vector_store,
        "state": state,
        "lease": lease,
        "lease_ms": int(lease_s * 1000),
        "vector_wait_ms": int(VECTOR_WAIT_S * 1000),
        "overdue_ms": int(OVERDUE_S * 1000),
        "overdue_limit": (limit + 1) // 2,
        "limit": limit,
    }
