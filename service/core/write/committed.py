"""What a committed write still owes: the vectors, the superseded flags and the pending marks.
Once Neo4j has committed, that work runs to its end even when the request that started it is
cancelled (past `limits.request_timeout_s`, or its client gone), so the two stores agree without
waiting for the next reconcile; the caller still hears the cancellation."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


class CommittedWork:
    """Runs the rest of committed writes; `close` waits for what still runs."""

    def __init__(self) -> None:
        self._running: set[asyncio.Task[Any]] = set()

    async def finish(self, work: Coroutine[Any, Any, T]) -> T:
        """`work`'s result; cancelling the caller leaves `work` running to its end."""
        task = asyncio.ensure_future(work)
        self._running.add(task)
        task.add_done_callback(self._running.discard)
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            task.add_done_callback(_log_failure)
            raise

    async def close(self) -> None:
        """Wait for the work of cancelled callers (service shutdown)."""
        await asyncio.gather(*self._running, return_exceptions=True)


def _log_failure(task: asyncio.Task[Any]) -> None:
    """A failure nobody awaits any more: reconcile finishes what it left pending."""
    if not task.cancelled() and (failure := task.exception()) is not None:
        log.error("finishing a committed write failed; reconcile will", exc_info=failure)
