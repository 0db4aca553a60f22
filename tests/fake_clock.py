"""A clock the test moves by hand."""

from __future__ import annotations


class Clock:
    """Callable like `time.monotonic`; returns `now`, which the test sets."""

    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
