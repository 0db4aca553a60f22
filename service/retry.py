"""The one retry policy of every backend call that retries (tenacity): transient failures run
again after exponential, jittered waits until a time budget is spent; any other error at once.

Used by start-up waits (`wait_until_ready`), Neo4j's auto-commit statements and Qdrant server
calls; each caller says which failures are transient and how long it may wait.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Awaitable, Callable

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception

from service.errors import BackendUnavailable

log = logging.getLogger(__name__)

JITTER = 0.2  # each wait is drawn within ±20%, so calls that failed together do not retry together


def retrying(
    call: str,
    transient: Callable[[BaseException], bool],
    budget_s: float,
    first_wait_s: float,
    max_wait_s: float,
    logger: logging.Logger = log,
    level: int = logging.WARNING,
) -> AsyncRetrying:
    """Attempts of `call`: a failure `transient` accepts runs again after `first_wait_s`, then
    twice as long each time (at most `max_wait_s`), until `budget_s` have passed since the
    first failure; the last failure, or any other, is raised. Each retry is logged on `logger`
    at `level` with the failure's first line (never a payload) and the wait."""

    first_failure: list[float] = []

    def spent(state: RetryCallState) -> bool:
        """Called after each failure: whether `budget_s` have passed since the first one (a
        slow first attempt does not use up the budget of its retries)."""
        now = time.monotonic()
        if not first_failure:
            first_failure.append(now)
        return now - first_failure[0] >= budget_s

    def wait(state: RetryCallState) -> float:
        base = min(first_wait_s * 2 ** (state.attempt_number - 1), max_wait_s)
        return base * random.uniform(1 - JITTER, 1 + JITTER)

    def before_sleep(state: RetryCallState) -> None:
        error = state.outcome.exception() if state.outcome is not None else None
        text = str(error).splitlines()[0] if error is not None and str(error) else repr(error)
        pause = state.next_action.sleep if state.next_action is not None else 0.0
        logger.log(level, "%s failed (%s); retrying in %s s", call, text, seconds(pause))

    return AsyncRetrying(
        retry=retry_if_exception(transient),
        wait=wait,
        stop=spent,
        before_sleep=before_sleep,
        reraise=True,
    )


async def wait_until_ready(
    backend: str,
    probe: Callable[[], Awaitable[None]],
    timeout_s: float,
    hint: str,
) -> None:
    """Call `probe` until it succeeds or `timeout_s` passes; then fail with a clear message."""
    attempts = 0
    try:
        async for attempt in retrying(
            f"{backend} readiness probe",
            _unready,
            timeout_s,
            first_wait_s=0.2,
            max_wait_s=2.0,
            level=logging.DEBUG,  # a backend still starting is expected, not a fault
        ):
            with attempt:
                attempts += 1
                await probe()
    except (BackendUnavailable, OSError) as exc:
        raise BackendUnavailable(
            backend,
            f"not reachable after {timeout_s:.0f} s and {attempts} attempts ({exc}). {hint}",
        ) from exc
    if attempts > 1:
        log.info("%s became ready after %d attempts", backend, attempts)


def _unready(exc: BaseException) -> bool:
    """A backend still coming up: it refuses connections or reports itself unavailable."""
    return isinstance(exc, BackendUnavailable | OSError)


def seconds(value: float) -> str:
    """A wait as people read it: tenths below half a second, else whole seconds."""
    return f"{value:.1f}" if value < 0.5 else f"{value:.0f}"
