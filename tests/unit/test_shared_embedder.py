"""SharedEmbedder: requests go first; background work runs in chunks once requests leave the
embedder quiet, and is never starved for longer than `max_wait_s` (`bulk_wait_s` while bulk work
embeds)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import numpy as np

from service.stores.embeddings import SharedEmbedder, Vectors


class SlowEmbedder:
    """Takes `seconds` per call, one call at a time, and records what it embedded."""

    model = "slow"
    dimensions = 2

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.calls: list[list[str]] = []
        self._lock = asyncio.Lock()

    async def embed(self, texts: Sequence[str]) -> Vectors:
        async with self._lock:
            self.calls.append(list(texts))
            await asyncio.sleep(self.seconds)
            return np.ones((len(texts), 2), dtype=np.float32)

    async def close(self) -> None:
        return None


async def test_background_chunks_wait_for_requests_to_go_quiet() -> None:
    inner = SlowEmbedder(0.01)
    shared = SharedEmbedder(inner, quiet_s=0.05, max_wait_s=5.0, chunk=2)
    request = asyncio.create_task(shared.embed(["q1"]))
    await asyncio.sleep(0)
    vectors = await shared.embed_background(["a", "b", "c"])
    await request
    assert inner.calls == [["q1"], ["a", "b"], ["c"]]
    assert vectors.shape == (3, 2)


async def test_a_request_waits_for_at_most_the_chunk_under_way() -> None:
    inner = SlowEmbedder(0.05)
    shared = SharedEmbedder(inner, quiet_s=0.0, max_wait_s=5.0, chunk=1)
    background = asyncio.create_task(shared.embed_background(["a", "b", "c"]))
    await asyncio.sleep(0.01)  # chunk "a" is being embedded
    await shared.embed(["q"])
    await background
    assert inner.calls[:2] == [["a"], ["q"]]


async def test_background_work_is_not_starved_by_a_steady_stream_of_requests() -> None:
    inner = SlowEmbedder(0.005)
    shared = SharedEmbedder(inner, quiet_s=10.0, max_wait_s=0.05, chunk=8)
    loop = asyncio.get_running_loop()
    started = loop.time()
    assert (await shared.embed_background(["a"])).shape == (1, 2)
    assert 0.04 <= loop.time() - started < 1.0
    assert (await shared.embed_background([])).shape == (0, 2)


async def test_background_work_waits_longer_while_bulk_work_embeds() -> None:
    inner = SlowEmbedder(0.001)
    shared = SharedEmbedder(
        inner, quiet_s=10.0, max_wait_s=0.05, chunk=8, bulk_texts=3, bulk_wait_s=0.3
    )
    loop = asyncio.get_running_loop()

    async def waited_for(text: str) -> float:
        started = loop.time()
        await shared.embed_background([text])
        return loop.time() - started

    await shared.embed(["b1", "b2", "b3"])
    behind_bulk = await waited_for("a")
    await asyncio.sleep(0.3)  # no bulk work since
    await shared.embed(["q1", "q2"])
    behind_requests = await waited_for("c")
    assert 0.25 <= behind_bulk < 1.0
    assert 0.04 <= behind_requests < 0.2
