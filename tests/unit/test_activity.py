"""The process's activity: how long ago the latest work was."""

from __future__ import annotations

from service.stores.activity import Activity
from tests.fake_clock import Clock


def test_quiet_time_counts_from_the_latest_touch() -> None:
    clock = Clock()
    activity = Activity(clock)
    clock.now = 103.5
    assert activity.quiet_s() == 3.5
    activity.touch()
    clock.now = 104.0
    assert activity.quiet_s() == 0.5
