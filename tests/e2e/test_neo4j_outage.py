"""Neo4j stopped under a running server, then started again: every call during the outage answers
503 backend_unavailable within seconds (none hangs), readiness says so, and the server recovers
by itself with nothing acknowledged lost."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from service.config import Neo4jSettings, Settings
from service.stores.neo4j_local import LocalNeo4j, free_port
from tests.e2e.conftest import serving

# The driver retries a transient failure for `neo4j.retry_time_s` (5 s), then the call fails.
FAIL_WITHIN_S = 12.0
CALLS: list[tuple[str, str, dict[str, Any]]] = [
    ("POST", "/v1/memories", {"json": {"content": "during the outage", "key": "lost"}}),
    ("POST", "/v1/memories/get", {"json": {"keys": ["kept"]}}),
    ("GET", "/v1/fulltext", {"params": {"keywords": "kept"}}),
    ("GET", "/v1/stats", {}),
]


@pytest.fixture
def own_neo4j(tmp_path: Path) -> Iterator[LocalNeo4j]:
    """A Neo4j of this test alone (the session's must stay up)."""
    local = LocalNeo4j(
        Neo4jSettings(bolt_port=free_port(), http_port=free_port(), heap="512m"), tmp_path
    )
    local.start(timeout_s=240)
    try:
        yield local
    finally:
        local.stop()


async def test_calls_fail_fast_while_neo4j_is_down_and_the_server_recovers(
    settings: Settings, own_neo4j: LocalNeo4j, tmp_path: Path
) -> None:
    neo4j = own_neo4j.settings.model_copy(update={"uri": own_neo4j.bolt_uri})
    data_dir = tmp_path / "serve"
    data_dir.mkdir()
    with serving(settings.model_copy(update={"neo4j": neo4j}), data_dir) as url:
        async with httpx.AsyncClient(base_url=url, timeout=60) as client:
            kept = await client.post("/v1/memories", json={"content": "before", "key": "kept"})
            assert kept.status_code == 201
            await asyncio.to_thread(own_neo4j.stop)
            outage = await asyncio.gather(*(timed(client, *call) for call in CALLS))
            ready = await client.get("/readyz")
            await asyncio.to_thread(own_neo4j.start, 240)
            recovered_after = await until_saved(client)
            got = await client.post("/v1/memories/get", json={"keys": ["kept", "lost", "back"]})
    assert [(status, kind) for status, kind, _ in outage] == [(503, "backend_unavailable")] * 4
    assert max(seconds for _, _, seconds in outage) < FAIL_WITHIN_S
    assert (ready.status_code, ready.json()["checks"]["neo4j"]["status"]) == (503, "error")
    assert recovered_after < 60
    assert [m["key"] for m in got.json()["memories"]] == ["kept", "back"]
    assert got.json()["missing"] == ["lost"]


async def timed(
    client: httpx.AsyncClient, method: str, path: str, kwargs: dict[str, Any]
) -> tuple[int, str, float]:
    started = time.monotonic()
    response = await client.request(method, path, **kwargs)
    return response.status_code, response.json()["error_type"], time.monotonic() - started


async def until_saved(client: httpx.AsyncClient) -> float:
    """Seconds until a save succeeds again (the server is not restarted)."""
    started = time.monotonic()
    while time.monotonic() - started < 90:
        response = await client.post("/v1/memories", json={"content": "after", "key": "back"})
        if response.status_code == 201:
            return time.monotonic() - started
        await asyncio.sleep(1)
    return float("inf")
