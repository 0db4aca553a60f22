"""MCP resources on a keyed server: a key lists and reads the memories of its own namespace
only, newest first, and a key of another namespace cannot read them."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager

import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import TextResourceContents

from tests.e2e.conftest import Tenants


@asynccontextmanager
async def client_of(tenants: Tenants, namespace: str, role: str) -> AsyncGenerator[Client]:
    headers = tenants.headers(namespace, role)
    async with (
        create_mcp_http_client(headers=headers) as http,
        Client(streamable_http_client(f"{tenants.url}/mcp", http_client=http)) as client,
    ):
        yield client


async def test_a_reader_lists_and_reads_its_own_namespace_s_recent_memories(
    tenants: Tenants,
) -> None:
    mine, theirs = tenants.namespaces
    async with client_of(tenants, mine, "writer") as writer:
        for key in ("res-old", "res-new"):
            await writer.call_tool("memory_save", {"key": key, "content": f"{key} content"})
    async with client_of(tenants, theirs, "writer") as other:
        await other.call_tool("memory_save", {"key": "res-theirs", "content": "not yours"})
    async with client_of(tenants, mine, "reader") as reader:
        names = [r.name for r in (await reader.list_resources()).resources]
        contents = (await reader.read_resource("memory://res-new")).contents
        with pytest.raises(MCPError) as refused:
            await reader.read_resource("memory://res-theirs")
    assert names[:2] == ["res-new", "res-old"] and "res-theirs" not in names
    assert isinstance(contents[0], TextResourceContents)
    assert json.loads(contents[0].text)["namespace"] == mine
    assert "Memory not found: res-theirs" in str(refused.value)
