"""Requests mark the process active where they begin and end; health probes and metric scrapes
do not (a scraper must not keep the embedded engine from ever building its index)."""

from __future__ import annotations

import asyncio

from starlette.types import Message, Receive, Scope, Send

from service.api.http.activity import MarksActivity
from service.stores.activity import Activity
from tests.fake_clock import Clock


class RecordedActivity(Activity):
    """Activity on `clock` that keeps the time of each touch."""

    def __init__(self, clock: Clock) -> None:
        super().__init__(clock)
        self.clock = clock
        self.touches: list[float] = []

    def touch(self) -> None:
        self.touches.append(self.clock.now)
        super().touch()


def served(path: str, activity: RecordedActivity) -> list[float]:
    """Serve one request to `path` that takes 5 s of the clock; the times of its touches."""
    activity.touches.clear()
    clock = activity.clock

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        clock.now += 5.0

    async def receive() -> Message:
        return {"type": "http.request", "body": b""}

    async def send(message: Message) -> None:
        return None

    scope: Scope = {"type": "http", "path": path, "method": "GET"}
    asyncio.run(MarksActivity(app, activity)(scope, receive, send))
    return list(activity.touches)


def test_a_request_touches_the_activity_as_it_begins_and_as_it_ends() -> None:
    activity = RecordedActivity(Clock(0.0))
    activity.clock.now = 10.0
    assert served("/v1/retrieve", activity) == [10.0, 15.0]
    assert activity.quiet_s() == 0.0


def test_probes_and_metric_scrapes_leave_the_process_quiet() -> None:
    activity = RecordedActivity(Clock(0.0))
    for path in ("/healthz", "/readyz", "/metrics"):
        assert served(path, activity) == []
    assert activity.quiet_s() == 15.0
