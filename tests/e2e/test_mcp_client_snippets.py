"""Every client configuration in docs/mcp-clients.md, started as written (the placeholder path and
URL pointed at this checkout and a test daemon) with the MCP client, lists the tools."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from service.api.tools import TOOLS
from service.config import Settings
from service.data_folder import discovery
from service.stores.neo4j_local import free_port
from tests.e2e.conftest import REPO, service_env
from tests.e2e.test_daemon import START_TIMEOUT_S, Daemon, cli, stop_daemon

GUIDE = REPO / "docs" / "mcp-clients.md"
COMMAND = "/path/to/mnemograph/.venv/bin/mnemograph"
URL = "http://127.0.0.1:8080/mcp"
KEY = "replace-with-your-key"
TEST_KEY = "snippet-test-key"


def snippets() -> list[tuple[str, dict[str, Any]]]:
    """(section, the one server entry) for every ```json block, in the guide's order."""
    found: list[tuple[str, dict[str, Any]]] = []
    for section in re.split(r"^## ", GUIDE.read_text(), flags=re.MULTILINE)[1:]:
        title = section.split("\n", 1)[0].strip()
        for block in re.findall(r"```json\n(.*?)```", section, flags=re.DOTALL):
            config: dict[str, Any] = json.loads(block)
            (servers,) = config.values()
            assert list(servers) == ["mnemograph"]
            found.append((title, servers["mnemograph"]))
    return found


SNIPPETS = snippets()


def snippet_id(snippet: tuple[str, dict[str, Any]]) -> str:
    title, server = snippet
    return f"{title}-{'stdio' if 'command' in server else 'http'}"


def start_daemon(settings: Settings, data_dir: Path, **extra: str) -> Iterator[Daemon]:
    env = service_env(settings, data_dir, free_port(), **extra)
    try:
        started = cli(env, "daemon", "start", timeout=START_TIMEOUT_S)
        assert started.returncode == 0, started.stderr
        info = discovery.read(data_dir)
        assert info is not None
        yield Daemon(info.url, data_dir, env)
    finally:
        stop_daemon(env, data_dir)


@pytest.fixture(scope="module")
def open_daemon(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """A daemon with auth off, as `make run` starts it."""
    yield from start_daemon(settings, tmp_path_factory.mktemp("snippets-open"))


@pytest.fixture(scope="module")
def keyed_daemon(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """A daemon that requires an API key."""
    data_dir = tmp_path_factory.mktemp("snippets-keyed")
    yield from start_daemon(settings, data_dir, MNEMO_AUTH__API_KEYS=f"{TEST_KEY}:default:admin")


def test_the_guide_has_a_snippet_per_client_and_transport() -> None:
    assert [snippet_id(s) for s in SNIPPETS] == [
        "Claude Desktop-stdio",
        "Claude Code-stdio",
        "Claude Code-http",
        "Cursor-stdio",
        "Cursor-http",
        "VS Code-stdio",
        "VS Code-http",
        "With API keys-stdio",
        "With API keys-http",
    ]


def connection(server: dict[str, Any], daemon: Daemon, tmp_path: Path) -> Any:
    """What the client would start or call, with this checkout's path and the daemon's URL."""
    if "command" in server:
        assert server["command"] == COMMAND
        assert server["args"] == ["mcp"]
        env = {k: v for k, v in daemon.env.items() if k != "MNEMO_AUTH__API_KEYS"}
        env |= {name: value.replace(KEY, TEST_KEY) for name, value in server.get("env", {}).items()}
        command = str(Path(sys.executable).parent / "mnemograph")
        return StdioServerParameters(command=command, args=["mcp"], env=env, cwd=str(tmp_path))
    assert server["url"] == URL
    headers = {k: v.replace(KEY, TEST_KEY) for k, v in server.get("headers", {}).items()}
    http = httpx2.AsyncClient(headers=headers, timeout=30)
    return streamable_http_client(f"{daemon.url}/mcp", http_client=http)


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[snippet_id(s) for s in SNIPPETS])
async def test_snippet_starts_and_lists_every_tool(
    snippet: tuple[str, dict[str, Any]],
    open_daemon: Daemon,
    keyed_daemon: Daemon,
    tmp_path: Path,
) -> None:
    title, server = snippet
    daemon = keyed_daemon if title == "With API keys" else open_daemon
    async with Client(connection(server, daemon, tmp_path)) as client:
        tools = (await client.list_tools()).tools
        stats = await client.call_tool("memory_stats", {})
    assert sorted(tool.name for tool in tools) == sorted(TOOLS)
    assert stats.is_error is False


async def test_a_keyed_server_refuses_the_snippet_without_its_key(keyed_daemon: Daemon) -> None:
    (_, plain) = SNIPPETS[2]  # Claude Code over HTTP, no header
    assert "headers" not in plain
    initialize: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    headers = {"accept": "application/json, text/event-stream"}
    async with httpx2.AsyncClient(timeout=30) as http:
        refused = await http.post(f"{keyed_daemon.url}/mcp", json=initialize, headers=headers)
    assert refused.status_code == 401  # before any MCP message is read
    assert refused.json()["error_type"] == "unauthorized"
