"""The stack suite's session: a clean stack before the first test (`make stack-clean`, then
`make stack-up`: images built or reused), `make stack-down` after the last (STACK_KEEP=1 leaves
it up); the export/import round trip runs first, while the stores hold nothing else."""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
import pytest_asyncio

from tests.e2e.conftest import Api, HttpApi, McpApi
from tests.stack.stack import Stack

ROUND_TRIP = "test_backup_roundtrip.py"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The round trip first: Lucene's BM25 statistics span namespaces, so its searches answer
    the same before and after only in a world of its own namespace."""
    items.sort(key=lambda item: item.path.name != ROUND_TRIP)


@pytest.fixture(scope="session")
def stack() -> Iterator[Stack]:
    running = Stack.from_environment()
    started = time.monotonic()
    running.down(volumes=True)
    running.up()
    print("", *running.said, sep="\n")
    print(f"stack: clean, up and ready in {time.monotonic() - started:.1f} s at {running.url}")
    yield running
    if os.environ.get("STACK_KEEP") != "1":
        running.down()


@pytest_asyncio.fixture
async def admin_http(stack: Stack) -> AsyncIterator[HttpApi]:
    """HTTP as the admin key (any namespace, given as `namespace`)."""
    async with httpx.AsyncClient(
        base_url=stack.url, headers=stack.admin_headers(), timeout=60
    ) as client:
        yield HttpApi(client)


@pytest_asyncio.fixture(params=["http", "mcp"])
async def api(request: pytest.FixtureRequest, stack: Stack) -> AsyncIterator[Api]:
    """Each scenario runs once over HTTP and once over MCP, as the admin key."""
    if request.param == "http":
        async with httpx.AsyncClient(
            base_url=stack.url, headers=stack.admin_headers(), timeout=60
        ) as client:
            yield HttpApi(client)
    else:
        yield McpApi(f"{stack.url}/mcp", stack.admin_headers())
