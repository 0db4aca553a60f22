"""The one place that retries (`service.retry`): transient failures are retried until the backend
answers or the time is up; any other error is raised at once, after a single call."""

from __future__ import annotations

import pytest

from service.core.errors import BackendUnavailable, InvalidParameter
from service.retry import wait_until_ready


class Probe:
    """Fails with the given errors, one per call, then answers."""

    def __init__(self, *failures: Exception) -> None:
        self.failures = list(failures)
        self.calls = 0

    async def __call__(self) -> None:
        self.calls += 1
        if self.failures:
            raise self.failures.pop(0)


async def test_transient_failures_are_retried_until_the_backend_answers() -> None:
    probe = Probe(BackendUnavailable("neo4j", "starting"), ConnectionRefusedError(111, "refused"))
    await wait_until_ready("neo4j", probe, timeout_s=10, hint="")
    assert probe.calls == 3


@pytest.mark.parametrize(
    "error",
    [InvalidParameter("Invalid limit value: 0"), ValueError("bad config"), KeyError("uri")],
)
async def test_an_error_that_is_not_transient_is_raised_after_one_call(error: Exception) -> None:
    probe = Probe(error, error)
    with pytest.raises(type(error)) as caught:
        await wait_until_ready("neo4j", probe, timeout_s=10, hint="")
    assert caught.value is error
    assert probe.calls == 1


async def test_a_backend_still_down_when_the_time_is_up_is_unavailable_with_a_hint() -> None:
    probe = Probe(*[BackendUnavailable("qdrant", "refused")] * 10)
    with pytest.raises(BackendUnavailable) as caught:
        await wait_until_ready("qdrant", probe, timeout_s=0.1, hint="Check MNEMO_QDRANT__URL.")
    # The first wait is 0.2 s: the second attempt comes after the 0.1 s budget and is the last.
    assert probe.calls == 2
    assert caught.value.message == (
        "qdrant is unavailable: not reachable after 0 s and 2 attempts "
        "(qdrant is unavailable: refused). Check MNEMO_QDRANT__URL."
    )
