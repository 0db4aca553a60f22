"""End-to-end: a real `mnemograph serve` process, driven over HTTP and MCP clients."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, Protocol

import httpx
import pytest
import pytest_asyncio
from mcp import Client

from service.config import Settings
from service.neo4j_local import free_port

REPO = Path(__file__).resolve().parents[2]


def service_env(
    settings: Settings, data_dir: Path, port: int | None = None, **extra: str
) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_")}
    env.update(
        MNEMO_NEO4J__URI=settings.neo4j.uri,
        MNEMO_NEO4J__PASSWORD=settings.neo4j.password.get_secret_value(),
        MNEMO_DATA_DIR=str(data_dir),
        MNEMO_LOG_LEVEL="WARNING",
        **extra,
    )
    if port is not None:
        env["MNEMO_HTTP__PORT"] = str(port)
    return env


@pytest.fixture(scope="session")
def server_url(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`mnemograph serve` on a free port with its own embedded Qdrant, until the session ends."""
    port = free_port()
    data_dir = tmp_path_factory.mktemp("serve-data")
    log = (data_dir / "serve.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve"],
        cwd=REPO,
        env=service_env(settings, data_dir, port),
        stdout=log,
        stderr=log,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError((data_dir / "serve.log").read_text()[-3000:])
        try:
            if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    else:
        process.kill()
        raise RuntimeError("mnemograph serve did not become ready")
    yield url
    process.terminate()
    process.wait(timeout=30)
    log.close()


class Api(Protocol):
    """One way to call the tools: over HTTP or over MCP."""

    transport: str

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]: ...


class HttpApi:
    """The HTTP twins of the tools (CONTRACT §6)."""

    transport = "http"

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client
        self.last_status = 0

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        response = await self._request(tool, dict(arguments))
        self.last_status = response.status_code
        return response.json()

    async def _request(self, tool: str, args: dict[str, Any]) -> httpx.Response:
        namespace = args.pop("namespace", None)
        params: dict[str, Any] = {"namespace": namespace} if namespace else {}
        if tool == "memory_save":
            return await self.client.post("/v1/memories", json=args, params=params)
        if tool == "memory_get":
            return await self.client.post("/v1/memories/get", json={**args, **params})
        if tool == "memory_link":
            path = f"/v1/memories/{args.pop('from')}/links/{args.pop('to')}"
            if args.pop("remove", False):
                params["type"] = args.get("type", "related")
                return await self.client.delete(path, params=params)
            return await self.client.put(path, json=args, params=params)
        if tool == "memory_delete":
            ref = [*args.get("ids", []), *args.get("keys", [])][0]
            return await self.client.delete(f"/v1/memories/{ref}", params=params)
        if tool == "memory_search":
            return await self.client.get("/v1/search", params={**args, **params})
        if tool == "memory_fulltext_search":
            keywords = args.pop("keywords")
            if isinstance(keywords, list):
                keywords = ",".join(keywords)
            return await self.client.get(
                "/v1/fulltext", params={**args, "keywords": keywords, **params}
            )
        if tool == "retrieve_context":
            return await self.client.post("/v1/retrieve", json={**args, **params})
        raise AssertionError(f"no HTTP twin for {tool}")


class McpApi:
    """The MCP tools over streamable HTTP at /mcp (one client session per call: anyio scopes
    cannot span pytest fixtures and tests)."""

    transport = "mcp"

    def __init__(self, url: str) -> None:
        self.url = url

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        async with Client(self.url) as client:
            result = await client.call_tool(tool, arguments)
        payload = result.structured_content
        assert payload is not None
        assert json.loads(result.content[0].text) == payload  # type: ignore[union-attr]
        assert result.is_error == (not payload["success"])
        return payload


@pytest_asyncio.fixture
async def http_api(server_url: str) -> AsyncIterator[HttpApi]:
    async with httpx.AsyncClient(base_url=server_url, timeout=30) as client:
        yield HttpApi(client)


@pytest.fixture
def mcp_api(server_url: str) -> McpApi:
    return McpApi(f"{server_url}/mcp")


@pytest_asyncio.fixture(params=["http", "mcp"])
async def api(request: pytest.FixtureRequest, server_url: str) -> AsyncIterator[Api]:
    """Each scenario runs once over HTTP and once over MCP."""
    if request.param == "http":
        async with httpx.AsyncClient(base_url=server_url, timeout=30) as client:
            yield HttpApi(client)
    else:
        yield McpApi(f"{server_url}/mcp")
