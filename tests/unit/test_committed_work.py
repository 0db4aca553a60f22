"""The rest of a committed write runs to its end when its caller is cancelled; `close` waits for
it, and a failure nobody awaits any more is logged."""

from __future__ import annotations

import asyncio
import logging

import pytest

from service.core.write.committed import CommittedWork


async def test_the_caller_gets_the_result_of_its_work() -> None:
    async def work() -> int:
        return 7

    assert await CommittedWork().finish(work()) == 7


async def test_a_cancelled_caller_leaves_the_work_running_and_close_waits_for_it() -> None:
    committed, released, steps = CommittedWork(), asyncio.Event(), list[str]()

    async def work() -> None:
        steps.append("started")
        await released.wait()
        steps.append("finished")

    caller = asyncio.create_task(committed.finish(work()))
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    assert steps == ["started"]
    released.set()
    await committed.close()
    assert steps == ["started", "finished"]


async def test_a_failure_after_the_caller_left_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    committed, released = CommittedWork(), asyncio.Event()

    async def work() -> None:
        await released.wait()
        raise RuntimeError("qdrant went away")

    caller = asyncio.create_task(committed.finish(work()))
    await asyncio.sleep(0)
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    released.set()
    with caplog.at_level(logging.ERROR, logger="service.core.write.committed"):
        await committed.close()
        await asyncio.sleep(0)
    assert [record.getMessage() for record in caplog.records] == [
        "finishing a committed write failed; reconcile will"
    ]
