"""Start-up waits for backends that may still be coming up.

Only transient failures are retried. At run time, Neo4j's transient failures are retried where
the statements run (`GraphStore`: reads itself, writes by the driver), not here.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from tenacity import (
    AsyncRetrying,
    RetryError,
    retry_if_exception_type,
    stop_after_delay,
    wait_exponential,
)

from service.errors import BackendUnavailable

log = logging.getLogger(__name__)


async def wait_until_ready(
    backend: str,
    probe: Callable[[], Awaitable[None]],
    timeout_s: float,
    hint: str,
) -> None:
    """Call `probe` until it succeeds or `timeout_s` passes; then fail with a clear message."""
    attempts = 0
    try:
        async for attempt in AsyncRetrying(
            retry=retry_if_exception_type((BackendUnavailable, OSError)),
            wait=wait_exponential(multiplier=0.2, max=2.0),
            stop=stop_after_delay(timeout_s),
            reraise=False,
        ):
            with attempt:
                attempts += 1
                await probe()
    except RetryError as exc:
        last = exc.last_attempt.exception()
        raise BackendUnavailable(
            backend,
            f"not reachable after {timeout_s:.0f} s and {attempts} attempts ({last}). {hint}",
        ) from last
    if attempts > 1:
        log.info("%s became ready after %d attempts", backend, attempts)
