"""How long this process has been quiet. The embedded vector engine builds its HNSW index in
one call that holds the GIL, which stops every thread of the process (a build over 50,000
context vectors stopped a bulk import for a minute); so it builds only once nothing has
touched the process's activity for a while: no request began or ended, no embedded engine was
written or searched."""

from __future__ import annotations

import time
from collections.abc import Callable


class Activity:
    """The time of the latest work; `quiet_s` is how long ago it was."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._last = clock()

    def touch(self) -> None:
        self._last = self._clock()

    def quiet_s(self) -> float:
        return self._clock() - self._last


PROCESS_ACTIVITY = Activity()  # every embedded store of the process and its HTTP requests
