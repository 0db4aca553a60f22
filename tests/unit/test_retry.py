"""Retries: start-up waits (`service.retry`) retry transient failures until the backend answers
or the time is up, and any other error is raised at once, after a single call; single statements
retry a transient Neo4j failure for `neo4j.retry_time_s`, writes only when the server rolled
them back."""

from __future__ import annotations

import asyncio
import logging

import pytest
from neo4j import READ_ACCESS, WRITE_ACCESS
from neo4j.exceptions import DriverError, Neo4jError, ServiceUnavailable, SessionExpired

from service.config import Neo4jSettings
from service.errors import BackendUnavailable, InvalidParameter
from service.retry import retrying, seconds, wait_until_ready
from service.stores.cypher_library import CypherLibrary
from service.stores.graph_store import GraphStore, may_retry
from service.stores.neo4j_local import free_port


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


async def test_the_budget_runs_from_the_first_failure_so_a_slow_first_attempt_is_retried() -> None:
    attempts = 0
    async for attempt in retrying(
        "slow call", lambda exc: isinstance(exc, TimeoutError), 0.05, 0.01, 0.01
    ):
        with attempt:
            attempts += 1
            if attempts == 1:
                await asyncio.sleep(0.2)  # longer than the whole budget, then it fails
                raise TimeoutError("slow, then failed")
    assert attempts == 2


async def test_a_failure_past_the_budget_is_raised_as_it_came() -> None:
    attempts = 0
    with pytest.raises(TimeoutError, match="still failing"):
        async for attempt in retrying(
            "failing call", lambda exc: isinstance(exc, TimeoutError), 0.0, 0.01, 0.01
        ):
            with attempt:
                attempts += 1
                raise TimeoutError("still failing")
    assert attempts == 1


@pytest.mark.parametrize(
    ("wait", "shown"), [(0.08, "0.1"), (0.42, "0.4"), (0.8, "1"), (1.2, "1"), (2.4, "2")]
)
def test_waits_are_logged_in_tenths_below_half_a_second_else_whole_seconds(
    wait: float, shown: str
) -> None:
    assert seconds(wait) == shown


@pytest.mark.parametrize(
    ("method", "expected"),
    [("read", ["retrying in 1 s", "retrying in 2 s"]), ("write", [])],
)
@pytest.mark.parametrize(("retry_time_s", "retries"), [(0.0, 0), (0.5, 1), (1.5, 2)])
async def test_a_lost_connection_is_retried_for_reads_only_then_fails_as_unavailable(
    method: str,
    expected: list[str],
    retry_time_s: float,
    retries: int,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Nothing listens on the port: each attempt fails at once with a connection error; reads
    # pause 1 s, then 2 s, and no attempt starts once retry_time_s have passed since the first.
    # A write is never run again after a connection error: it may have committed.
    settings = Neo4jSettings(retry_time_s=retry_time_s)
    graph = GraphStore(settings, f"bolt://127.0.0.1:{free_port()}", CypherLibrary())
    try:
        with (
            caplog.at_level(logging.WARNING, "service.stores.graph_store"),
            pytest.raises(BackendUnavailable) as caught,
        ):
            await getattr(graph, method)("health_check")
    finally:
        await graph.close()
    assert caught.value.message == "neo4j is unavailable: ServiceUnavailable"
    assert [r.getMessage().rsplit("; ", 1)[1] for r in caplog.records] == expected[:retries]


DEADLOCK = Neo4jError._hydrate_neo4j(  # pyright: ignore[reportPrivateUsage]
    code="Neo.TransientError.Transaction.DeadlockDetected", message="deadlock"
)
SYNTAX = Neo4jError._hydrate_neo4j(  # pyright: ignore[reportPrivateUsage]
    code="Neo.ClientError.Statement.SyntaxError", message="bad"
)


@pytest.mark.parametrize(
    ("error", "read", "write"),
    [
        (DEADLOCK, True, True),  # the server rolled the statement back
        (ServiceUnavailable("refused"), True, False),  # a write may have committed
        (SessionExpired("gone"), True, False),
        (SYNTAX, False, False),
    ],
    ids=["server-transient", "connection", "session-expired", "client-error"],
)
def test_which_failures_an_auto_commit_statement_may_retry(
    error: Neo4jError | DriverError, read: bool, write: bool
) -> None:
    assert (may_retry(error, READ_ACCESS), may_retry(error, WRITE_ACCESS)) == (read, write)
