"""End-to-end: a real `mnemograph serve` process, driven over HTTP and MCP clients."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

import httpx
import pytest
import pytest_asyncio
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from service.api.tools import TOOLS
from service.config import Settings
from service.stores.cypher_library import CYPHER_ROOT, CypherLibrary
from service.stores.graph_store import GraphStore
from service.stores.neo4j_local import free_port

REPO = Path(__file__).resolve().parents[2]
# `make soak` sets MNEMO_TEST_PROFILE=soak: the long profiles of the fuzz and abuse suites.
SOAK = os.environ.get("MNEMO_TEST_PROFILE") == "soak"


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


@contextmanager
def serving(settings: Settings, data_dir: Path, **extra: str) -> Generator[str]:
    """`mnemograph serve` on a free port with its own embedded Qdrant, until the block ends."""
    port = free_port()
    log = (data_dir / "serve.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve"],
        cwd=REPO,
        env=service_env(settings, data_dir, port, **extra),
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
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


@pytest.fixture(scope="session")
def server_url(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server without keys (auth off) for the whole session."""
    with serving(settings, tmp_path_factory.mktemp("serve-data")) as url:
        yield url


ROLES = ("reader", "writer", "admin")


@dataclass(frozen=True)
class Tenants:
    """A server with keys: two namespaces, a key for each role in each."""

    url: str
    namespaces: tuple[str, str]
    keys: dict[tuple[str, str], str]
    scratch: str  # an admin key of a third namespace, for suites that write anywhere

    def headers(self, namespace: str, role: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.keys[namespace, role]}"}

    def scratch_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.scratch}"}


@pytest.fixture(scope="session")
def tenants(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tenants]:
    """`mnemograph serve` with seven keys: reader, writer and admin of two fresh namespaces, and
    an admin of a third for the suites that write anywhere (fuzzing, injection)."""
    suffix = uuid.uuid4().hex[:8]
    namespaces = (f"iso-a-{suffix}", f"iso-b-{suffix}")
    keys = {(ns, role): f"{role}-{uuid.uuid4().hex}" for ns in namespaces for role in ROLES}
    scratch = f"admin-{uuid.uuid4().hex}"
    entries = ",".join(f"{key}:{ns}:{role}" for (ns, role), key in keys.items())
    entries += f",{scratch}:scratch-{suffix}:admin"
    data_dir = tmp_path_factory.mktemp("keyed-serve")
    with serving(settings, data_dir, MNEMO_AUTH__API_KEYS=entries) as url:
        yield Tenants(url, namespaces, keys, scratch)


@pytest_asyncio.fixture
async def census_store(settings: Settings) -> AsyncIterator[GraphStore]:
    """The Neo4j Browser queries of `cypher/browser/` (the isolation census among them)."""
    store = GraphStore(settings.neo4j, settings.neo4j.uri, CypherLibrary(CYPHER_ROOT / "browser"))
    yield store
    await store.close()


class Api(Protocol):
    """One way to call the tools: over HTTP or over MCP."""

    transport: str

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]: ...


class HttpApi:
    """The HTTP twins of the tools (docs/contract.md §6)."""

    transport = "http"

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client
        self.last_status = 0

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        response = await self._request(tool, dict(arguments))
        self.last_status = response.status_code
        return response.json()

    async def _request(self, tool: str, args: dict[str, Any]) -> httpx.Response:
        """The tool's HTTP twin from the one tool table: GET takes query parameters, other
        methods a JSON body; `namespace` rides in the query (in the body for POST /get)."""
        spec = TOOLS[tool]
        namespace = args.pop("namespace", None)
        params: dict[str, Any] = {"namespace": namespace} if namespace else {}
        method, path = spec.method, spec.path
        if tool == "memory_link":
            path = path.format(ref=args.pop("from"), target=args.pop("to"))
            if args.pop("remove", False):
                method, params["type"] = "DELETE", args.get("type", "related")
                args = {}
        elif tool == "memory_delete":
            refs: list[str] = [*args.pop("ids", []), *args.pop("keys", [])]
            path = path.format(ref=refs[0])
        elif tool == "memory_timeline":
            path = path.format(ref=args.pop("memoryId"))
        elif tool == "memory_fulltext_search" and isinstance(args["keywords"], list):
            args["keywords"] = ",".join(cast(list[str], args["keywords"]))
        if method == "GET":
            return await self.client.get(path, params={**args, **params})
        if spec.path.endswith(("/get", "/retrieve")):
            args, params = {**args, **params}, {}
        body = args or None
        return await self.client.request(method, path, json=body, params=params)


class McpApi:
    """The MCP tools over streamable HTTP at /mcp (one client session per call: anyio scopes
    cannot span pytest fixtures and tests)."""

    transport = "mcp"

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        self.url = url
        self.headers = headers

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        if self.headers is None:
            async with Client(self.url) as client:
                result = await client.call_tool(tool, arguments)
        else:
            async with (
                create_mcp_http_client(headers=self.headers) as http,
                Client(streamable_http_client(self.url, http_client=http)) as client,
            ):
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


async def wait_context_drained(graph: GraphStore, ns: str, limit_s: float = 90.0) -> None:
    """Until the background context indexers have refreshed every memory of the namespace (its
    context backlog, as the indexers count it, is empty)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if not (await graph.read("context_backlog", namespace=ns, vector_store=None))[0]["backlog"]:
            return
        await asyncio.sleep(0.2)
    raise TimeoutError(f"the context backlog of {ns} did not drain in {limit_s:.0f} s")
