"""Each service of the stack restarted (`docker-compose restart`) and crashed (its process
killed; the restart policy brings it back) while a client keeps saving: every save acknowledged
before, during and after is found afterwards, by get and by vector search."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import AsyncIterator

import httpx
import pytest
import pytest_asyncio

from tests.stack.stack import Stack
from tests.stack.writes import Writes

SERVICES = ("neo4j", "qdrant", "mnemograph")


@pytest_asyncio.fixture
async def writes(stack: Stack, namespace: str) -> AsyncIterator[Writes]:
    async with httpx.AsyncClient(
        base_url=stack.url, headers=stack.admin_headers(), timeout=60
    ) as client:
        yield Writes(client, namespace)


async def interrupted(stack: Stack, writes: Writes, service: str, how: str) -> None:
    """Saves before, during and after the restart or crash of `service`."""
    await writes.save_all("before", 5)
    stop = asyncio.Event()
    during = asyncio.create_task(writes.keep_saving("during", stop))
    await asyncio.sleep(1)
    if how == "restart":
        await asyncio.to_thread(stack.compose, "restart", service)
    else:
        restarts = int(stack.inspect(service, "{{.RestartCount}}"))
        os.kill(int(stack.inspect(service, "{{.State.Pid}}")), signal.SIGKILL)
        await asyncio.to_thread(stack.wait_ready)
        assert int(stack.inspect(service, "{{.RestartCount}}")) == restarts + 1
    await asyncio.to_thread(stack.wait_ready)
    stop.set()
    await during
    await writes.save_all("after", 5)


async def assert_nothing_acknowledged_lost(stack: Stack, writes: Writes) -> None:
    acknowledged = writes.acknowledged
    stored = await writes.present(sorted(acknowledged))
    assert {key: (memory["id"], memory["content"]) for key, memory in stored.items()} == (
        acknowledged
    )
    hits = {
        key: await writes.first_vector_hit(content) for key, (_, content) in acknowledged.items()
    }
    assert hits == {key: memory_id for key, (memory_id, _) in acknowledged.items()}
    # An unanswered save may have been written or not, never half: counted either way.
    kept = await writes.present(writes.unanswered) if writes.unanswered else {}
    if kept:  # a save whose commit the service could not confirm: its vector waits for reconcile
        stack.compose("exec", "-T", "mnemograph", "mnemograph", "reconcile")
    stats = await writes.client.get("/v1/stats", params={"namespace": writes.namespace})
    assert stats.json()["memoryCount"] == len(acknowledged) + len(kept)
    assert stats.json()["indexDetails"]["missingVectors"] == 0


@pytest.mark.parametrize("how", ["restart", "crash"])
@pytest.mark.parametrize("service", SERVICES)
async def test_nothing_acknowledged_is_lost(
    stack: Stack, writes: Writes, service: str, how: str
) -> None:
    await interrupted(stack, writes, service, how)
    during = [key for key in writes.acknowledged if key.startswith("during")]
    print(
        f"\n{service} {how}: {len(during)} saves acknowledged while it happened, "
        f"{len(writes.unanswered)} refused or unanswered"
    )
    assert len([key for key in writes.acknowledged if key.startswith(("before", "after"))]) == 10
    await assert_nothing_acknowledged_lost(stack, writes)
