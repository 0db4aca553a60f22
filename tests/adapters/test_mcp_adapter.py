"""The MCP adapter in-process: names, prefixes, hints, switches and the §2 envelope."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client

from service.api.mcp.server import build_mcp_server
from service.api.tools import TOOLS
from service.config import load_settings
from tests.adapters.conftest import fake_runtime, runtime_ref


async def call(prefix: str, tool: str, arguments: dict[str, Any], **settings: Any) -> Any:
    runtime = fake_runtime(load_settings(**settings))
    server = build_mcp_server(runtime_ref(runtime), prefix, runtime.settings.search.enabled)
    async with Client(server) as client:
        result = await client.call_tool(f"{prefix}{tool}", arguments)
    payload = result.structured_content
    assert payload is not None
    assert json.loads(result.content[0].text) == payload  # type: ignore[union-attr]
    assert result.is_error == (not payload["success"])
    return payload


async def tool_names(prefix: str = "", search: bool = True) -> list[str]:
    runtime = fake_runtime(load_settings())
    async with Client(build_mcp_server(runtime_ref(runtime), prefix, search)) as client:
        return sorted(tool.name for tool in (await client.list_tools()).tools)


async def test_every_tool_of_the_table_is_registered_with_its_prefix() -> None:
    assert await tool_names("rulebook_") == sorted(f"rulebook_{name}" for name in TOOLS)


async def test_search_disabled_drops_exactly_the_two_search_tools() -> None:
    assert await tool_names(search=False) == sorted(
        name for name in TOOLS if name not in ("memory_search", "memory_fulltext_search")
    )


async def test_tools_carry_the_hints_of_the_table() -> None:
    runtime = fake_runtime(load_settings())
    async with Client(build_mcp_server(runtime_ref(runtime))) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    delete, get = tools["memory_delete"].annotations, tools["memory_get"].annotations
    save = tools["memory_save"].annotations
    assert delete is not None and get is not None and save is not None
    assert (delete.destructive_hint, delete.idempotent_hint) == (True, True)
    assert (get.read_only_hint, save.read_only_hint, save.idempotent_hint) == (True, False, True)
    assert tools["memory_save"].description == TOOLS["memory_save"].description


async def test_every_parameter_of_every_tool_is_described_with_examples() -> None:
    runtime = fake_runtime(load_settings())
    async with Client(build_mcp_server(runtime_ref(runtime))) as client:
        tools = (await client.list_tools()).tools
    undescribed = [
        f"{tool.name}.{name}"
        for tool in tools
        for name, prop in tool.input_schema["properties"].items()
        if not prop.get("description") or not prop.get("examples")
    ]
    assert undescribed == []
    save = next(tool for tool in tools if tool.name == "memory_save").input_schema
    assert save["properties"]["tags"]["examples"] == [["arch"]]


async def test_an_out_of_range_argument_is_the_invalid_parameter_envelope_with_lists() -> None:
    payload = await call("", "retrieve_context", {"query": "q", "limit": 0})
    assert payload["error_type"] == "invalid_parameter"
    assert payload["message"].startswith("Invalid limit value: 0.")
    assert payload["results"] == []


async def test_an_unknown_argument_is_refused_not_ignored() -> None:
    payload = await call("", "retrieve_context", {"query": "q", "sortby": "relevance"})
    assert payload == {
        "success": False,
        "error_type": "invalid_parameter",
        "message": "Invalid sortby value: 'relevance'. Extra inputs are not permitted",
        "error": "Invalid sortby value: 'relevance'. Extra inputs are not permitted",
        "results": [],
    }


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("memory_get", {"keys": ["a"]}),
        ("memory_search", {"query": "q"}),
        ("memory_fulltext_search", {"keywords": "q"}),
        ("retrieve_context", {"query": "q"}),
        ("memory_timeline", {"memoryId": "a"}),
    ],
)
async def test_a_bad_sort_links_is_the_seeded_message_behind_any_other_problem(
    tool: str, arguments: dict[str, Any]
) -> None:
    alone = await call("", tool, {**arguments, "sortLinks": 1})
    assert alone["message"] == "Invalid sortLinks value: '1'. Must be true or false"
    with_unknown = await call("", tool, {**arguments, "sortLinks": "yes", "zzz": 1})
    assert with_unknown["message"] == "Invalid zzz value: 1. Extra inputs are not permitted"


async def test_a_boolean_takes_only_true_or_false() -> None:
    payload = await call("", "memory_link", {"from": "a", "to": "b", "remove": "yes"})
    assert payload["message"] == "Invalid remove value: 'yes'. Must be true or false"


async def test_null_lists_and_objects_of_a_save_are_absent_ones() -> None:
    nulls = dict.fromkeys(("tags", "metadata", "links", "supersedes"))
    payload = await call("", "memory_save", {"content": "x", "key": "k", **nulls})
    assert (payload["success"], payload["memory"]["key"], payload["created"]) == (True, "k", True)


async def test_a_missing_query_is_named() -> None:
    payload = await call("", "memory_search", {})
    assert payload["message"] == "Missing required parameter 'query'"


async def test_disabled_memory_answers_the_rulebook_message_under_the_prefix() -> None:
    payload = await call("rulebook_", "memory_search", {"query": "q"}, memory={"enabled": False})
    message = (
        "Memory system is not enabled. Set memory.enabled=true in mnemograph.toml or "
        "MNEMO_MEMORY__ENABLED=true"
    )
    assert payload == {
        "success": False,
        "error_type": "memory_disabled",
        "message": message,
        "error": message,
        "results": [],
    }


async def test_memory_get_without_refs_is_refused_with_both_list_fields() -> None:
    payload = await call("", "memory_get", {})
    assert payload == {
        "success": False,
        "error_type": "invalid_parameter",
        "message": "memory_get needs 'ids', 'keys' or 'key'",
        "error": "memory_get needs 'ids', 'keys' or 'key'",
        "memories": [],
        "missing": [],
    }


async def test_stdio_caller_is_admin_of_default_and_may_choose_a_namespace() -> None:
    runtime = fake_runtime(load_settings())
    async with Client(build_mcp_server(runtime_ref(runtime))) as client:
        await client.call_tool("memory_save", {"content": "c", "key": "k", "namespace": "team"})
        await client.call_tool("memory_search", {"query": "q", "tags": ["a", "a"]})
    (_, saved_in, data), (_, searched_in, params) = runtime.memories.calls
    assert (saved_in, data.key, searched_in, params.tags) == ("team", "k", "default", ["a", "a"])
