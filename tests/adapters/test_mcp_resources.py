"""MCP resources and prompts in-process: each memory readable as memory://{key}, the most recent
ones listed, and the recall prompt."""

from __future__ import annotations

import json

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import TextContent, TextResourceContents

from service.api.mcp.server import build_mcp_server
from service.config import load_settings
from tests.adapters.conftest import fake_runtime, runtime_ref


async def test_a_saved_memory_is_listed_and_readable_by_its_key() -> None:
    async with Client(build_mcp_server(runtime_ref(fake_runtime(load_settings())))) as client:
        for key in ("decision:one", "note:two"):
            await client.call_tool("memory_save", {"key": key, "content": f"{key} text"})
        listed = (await client.list_resources()).resources
        read = (await client.read_resource(listed[0].uri)).contents
    assert [(r.uri, r.name, r.mime_type) for r in listed] == [
        ("memory://note%3Atwo", "note:two", "application/json"),
        ("memory://decision%3Aone", "decision:one", "application/json"),
    ]
    assert isinstance(read[0], TextResourceContents)
    memory = json.loads(read[0].text)
    assert (memory["key"], memory["content"]) == ("note:two", "note:two text")


async def test_the_memory_template_is_advertised() -> None:
    async with Client(build_mcp_server(runtime_ref(fake_runtime(load_settings())))) as client:
        templates = (await client.list_resource_templates()).resource_templates
    assert [(t.uri_template, t.name) for t in templates] == [("memory://{key}", "memory")]


async def test_reading_an_unknown_key_is_an_error_naming_it() -> None:
    async with Client(build_mcp_server(runtime_ref(fake_runtime(load_settings())))) as client:
        with pytest.raises(MCPError) as raised:
            await client.read_resource("memory://ghost")
    assert "Memory not found: ghost" in str(raised.value)


async def test_disabled_memory_lists_no_resources_but_an_error() -> None:
    settings = load_settings(memory={"enabled": False})
    async with Client(build_mcp_server(runtime_ref(fake_runtime(settings)))) as client:
        with pytest.raises(MCPError) as raised:
            await client.list_resources()
    assert "memory_disabled" in str(raised.value)


async def test_the_recall_prompt_says_when_nothing_is_known() -> None:
    async with Client(build_mcp_server(runtime_ref(fake_runtime(load_settings())))) as client:
        listed = [prompt.name for prompt in (await client.list_prompts()).prompts]
        prompt = await client.get_prompt("recall", {"topic": "storage"})
    content = prompt.messages[0].content
    assert listed == ["recall"]
    assert isinstance(content, TextContent)
    assert content.text == (
        "What we know about storage, from the memory:\n\nNothing is saved about it yet.\n\n"
        "Read a memory in full with memory_get (its key) or as the resource memory://<key>."
    )
