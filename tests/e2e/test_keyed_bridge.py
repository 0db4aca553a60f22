"""The stdio bridge against a server with keys: it sends `MNEMO_MCP__API_KEY`, the server holds
it to that key's namespace and role, and without a valid key nothing gets through."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from service.config import Settings
from tests.e2e.conftest import REPO, Tenants, service_env


def bridge(settings: Settings, tenants: Tenants, data_dir: Path, key: str) -> StdioServerParameters:
    """`mnemograph mcp` pointed at the keyed server (its port; a data folder of its own)."""
    port = int(tenants.url.rsplit(":", 1)[1])
    env = service_env(settings, data_dir, port, MNEMO_MCP__API_KEY=key)
    args = ["-m", "service.cli", "mcp"]
    return StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(REPO))


def content(result: Any) -> dict[str, Any]:
    payload: dict[str, Any] | None = result.structured_content
    assert payload is not None
    return payload


async def test_the_bridge_acts_with_its_keys_namespace_and_role(
    settings: Settings, tenants: Tenants, tmp_path: Path
) -> None:
    home, other = tenants.namespaces
    params = bridge(settings, tenants, tmp_path, tenants.keys[home, "reader"])
    async with Client(params) as client:
        tools = len((await client.list_tools()).tools)
        saved = content(await client.call_tool("memory_save", {"content": "no"}))
        stats = content(await client.call_tool("memory_stats", {}))
        elsewhere = content(await client.call_tool("memory_stats", {"namespace": other}))
    assert tools == 10
    assert (saved["error_type"], saved["message"]) == (
        "forbidden",
        "This operation needs the 'writer' role; the key has 'reader'",
    )
    assert stats["success"] is True
    assert (elsewhere["error_type"], elsewhere["message"]) == (
        "forbidden",
        "Only admin keys may choose the namespace",
    )


async def test_the_bridge_with_an_unknown_key_gets_nothing_through(
    settings: Settings, tenants: Tenants, tmp_path: Path
) -> None:
    params = bridge(settings, tenants, tmp_path, "not-a-key")
    with pytest.raises(Exception) as caught:
        async with Client(params) as client:
            await client.list_tools()
    messages = " ".join(str(error) for error in leaves(caught.value))
    assert "HTTP 401" in messages
    assert "Invalid API key" in messages


def leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups."""
    inner: tuple[BaseException, ...] = getattr(error, "exceptions", ())
    return [leaf for nested in inner for leaf in leaves(nested)] if inner else [error]
