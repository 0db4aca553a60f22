"""One model, many callers: requests of one text (a query, a save) that arrive while the model
runs wait in order, then run together as one call. Under concurrent requests each run embeds
several texts, which costs the model less per text than one run per request
(docs/performance.md)."""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]  # one row per text


class JoinedRuns:
    """Calls of `run` (blocking; on a worker thread) one at a time, in order; while one runs,
    the requests that arrive queue, and a request of one text takes the requests of one text
    queued right after it into its run, up to `most_texts`. A request of several texts (a batch,
    the context indexer's chunk) runs alone: no one-text request waits for its texts. A run's
    failure is the failure of each request it held; a request whose caller gave up is left out
    of a run not started yet."""

    def __init__(self, run: Callable[[Sequence[str]], Vectors], most_texts: int) -> None:
        self._run = run
        self._most_texts = most_texts
        self._waiting: deque[tuple[Sequence[str], asyncio.Future[Vectors]]] = deque()
        self._drainer: asyncio.Task[None] | None = None
        self.runs = 0

    async def embed(self, texts: Sequence[str]) -> Vectors:
        """The vectors of `texts`, in order, from the run that takes them."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Vectors] = loop.create_future()
        self._waiting.append((texts, future))
        drainer = self._drainer
        if drainer is None or drainer.done() or drainer.get_loop() is not loop:
            self._drainer = asyncio.create_task(self._drain(), name="embedding-runs")
        return await future

    async def close(self) -> None:
        """Stop: the run under way and every waiting request are cancelled."""
        drainer = self._drainer
        if drainer is not None and not drainer.done():
            drainer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await drainer

    async def _drain(self) -> None:
        try:
            await self._run_waiting()
        finally:  # cancelled (the loop shutting down): no request is left waiting for it
            while self._waiting:
                self._waiting.popleft()[1].cancel()

    async def _run_waiting(self) -> None:
        while self._waiting:
            joined = [item for item in self._next() if not item[1].done()]
            if not joined:
                continue
            try:
                self.runs += 1
                texts = [text for part, _ in joined for text in part]
                vectors = await asyncio.to_thread(self._run, texts)
            except asyncio.CancelledError:
                for _, future in joined:
                    future.cancel()
                raise
            except Exception as exc:  # each caller gets the run's failure
                for _, future in joined:
                    if not future.done():
                        future.set_exception(exc)
                continue
            start = 0
            for part, future in joined:
                if not future.done():
                    future.set_result(vectors[start : start + len(part)].copy())
                start += len(part)

    def _next(self) -> list[tuple[Sequence[str], asyncio.Future[Vectors]]]:
        """The first waiting request, and if it is of one text the one-text requests right
        after it, up to `most_texts`."""
        joined = [self._waiting.popleft()]
        if len(joined[0][0]) != 1:
            return joined
        while self._waiting and len(joined) < self._most_texts and len(self._waiting[0][0]) == 1:
            joined.append(self._waiting.popleft())
        return joined
