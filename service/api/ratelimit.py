"""The per-key rate limit: one token bucket per caller (`limits.rate_per_s` sustained,
`limits.rate_burst` at once), and how long a refused caller should wait."""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

# Buckets kept at most; the least recently seen caller is forgotten first (a full bucket).
MAX_CALLERS = 10_000


@dataclass
class _Bucket:
    tokens: float
    at: float


class RateLimiter:
    """Token buckets by caller; `rate_per_s == 0` turns the limit off."""

    def __init__(
        self, rate_per_s: float, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._rate = rate_per_s
        self._burst = float(burst)
        self._clock = clock
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def acquire(self, caller: str) -> float:
        """Take one token for `caller`: 0 when admitted, else the seconds until one is free."""
        if self._rate <= 0:
            return 0.0
        now = self._clock()
        bucket = self._buckets.pop(caller, None) or _Bucket(self._burst, now)
        bucket.tokens = min(self._burst, bucket.tokens + (now - bucket.at) * self._rate)
        bucket.at = now
        self._buckets[caller] = bucket
        if len(self._buckets) > MAX_CALLERS:
            self._buckets.popitem(last=False)
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return 0.0
        return (1.0 - bucket.tokens) / self._rate


def retry_after(wait_s: float) -> int:
    """A wait as Retry-After says it: whole seconds, at least 1."""
    return max(1, math.ceil(wait_s))
