"""Requests of one text that wait for the model go together in its next run, in order, as many as
fit; others run alone; a run's failure is each of its requests' failure, and a caller that gave
up is left out."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence

import numpy as np
import pytest

from service.stores.joined_runs import JoinedRuns, Vectors


class Model:
    """Vectors of one column: each text's length; the first run waits until released."""

    def __init__(self, fail_on: str = "") -> None:
        self.calls: list[list[str]] = []
        self.running = threading.Event()
        self.release = threading.Event()
        self.fail_on = fail_on

    def run(self, texts: Sequence[str]) -> Vectors:
        self.calls.append(list(texts))
        self.running.set()
        if len(self.calls) == 1:
            self.release.wait(5)
        if self.fail_on in texts:
            raise RuntimeError(f"cannot embed {self.fail_on}")
        return np.array([[len(text)] for text in texts], dtype=np.float32)


async def started(runs: JoinedRuns, model: Model, texts: list[str]) -> asyncio.Task[Vectors]:
    """The first request, its run under way (and held) in the model."""
    task = asyncio.create_task(runs.embed(texts))
    assert await asyncio.to_thread(model.running.wait, 5)
    return task


async def test_one_text_requests_waiting_for_the_model_share_its_next_run_in_order() -> None:
    model = Model()
    runs = JoinedRuns(model.run, most_texts=3)
    first = await started(runs, model, ["a"])
    asked: list[list[str]] = [["bb"], ["ccc"], ["dddd"], ["eeeee"], ["f", "gg"], ["hhh"], []]
    waiting = [asyncio.create_task(runs.embed(texts)) for texts in asked]
    await asyncio.sleep(0.01)
    model.release.set()
    assert (await first).tolist() == [[1.0]]
    assert [(await task).tolist() for task in waiting] == [
        [[2.0]], [[3.0]], [[4.0]], [[5.0]], [[1.0], [2.0]], [[3.0]], [],
    ]  # fmt: skip
    assert model.calls == [["a"], ["bb", "ccc", "dddd"], ["eeeee"], ["f", "gg"], ["hhh"], []]
    assert runs.runs == 6


async def test_a_failed_run_fails_each_of_its_requests_and_no_other() -> None:
    model = Model(fail_on="bad")
    runs = JoinedRuns(model.run, most_texts=2)
    first = await started(runs, model, ["ok"])
    joined = [asyncio.create_task(runs.embed([text])) for text in ("bad", "fine")]
    after = asyncio.create_task(runs.embed(["later"]))
    await asyncio.sleep(0.01)
    model.release.set()
    assert (await first).tolist() == [[2.0]]
    for task in joined:
        with pytest.raises(RuntimeError, match="cannot embed bad"):
            await task
    assert (await after).tolist() == [[5.0]]


async def test_a_request_whose_caller_gave_up_is_left_out_of_the_next_run() -> None:
    model = Model()
    runs = JoinedRuns(model.run, most_texts=8)
    first = await started(runs, model, ["a"])
    gone = asyncio.create_task(runs.embed(["gone"]))
    kept = asyncio.create_task(runs.embed(["kept"]))
    await asyncio.sleep(0.01)
    gone.cancel()
    model.release.set()
    await first
    assert (await kept).tolist() == [[4.0]]
    assert model.calls == [["a"], ["kept"]]


async def test_closing_cancels_the_run_under_way_and_every_request_still_waiting() -> None:
    model = Model()
    runs = JoinedRuns(model.run, most_texts=8)
    first = await started(runs, model, ["a"])
    waiting = asyncio.create_task(runs.embed(["b", "c"]))
    await asyncio.sleep(0.01)
    closing = asyncio.create_task(runs.close())
    await asyncio.sleep(0.01)
    model.release.set()
    await closing
    for task in (first, waiting):
        with pytest.raises(asyncio.CancelledError):
            await task
    assert (await runs.embed(["later"])).tolist() == [[5.0]]  # a new run starts
