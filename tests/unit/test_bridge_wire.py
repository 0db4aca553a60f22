"""The stdio bridge's view of the streamable HTTP wire: the routing headers it derives from a
message agree with the MCP SDK's, and server-sent events are split into messages."""

from __future__ import annotations

from collections.abc import AsyncIterator

import mcp_types
import pytest
from mcp.shared import inbound

from service.daemon import bridge


def test_the_wire_constants_agree_with_the_sdk() -> None:
    assert bridge.PROTOCOL_VERSION_HEADER == inbound.MCP_PROTOCOL_VERSION_HEADER
    assert bridge.METHOD_HEADER == inbound.MCP_METHOD_HEADER
    assert bridge.NAME_HEADER == inbound.MCP_NAME_HEADER
    assert dict(inbound.NAME_BEARING_METHODS) == bridge.NAME_BEARING_METHODS
    assert bridge.PROTOCOL_VERSION_META_KEY == mcp_types.PROTOCOL_VERSION_META_KEY
    assert bridge.CONNECTION_CLOSED == mcp_types.CONNECTION_CLOSED
    assert bridge.PARSE_ERROR == mcp_types.PARSE_ERROR


@pytest.mark.parametrize("value", ["memory_save", " padded ", "naïve", "=?base64?eA==?=", "a\tb"])
def test_header_values_are_encoded_like_the_sdk(value: str) -> None:
    assert bridge.header_value(value) == inbound.encode_header_value(value)


def test_initialize_carries_no_version_and_later_legacy_messages_the_negotiated_one() -> None:
    initialize: dict[str, object] = {"jsonrpc": "2.0", "id": 0, "method": "initialize"}
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "memory_get"}}
    assert bridge.request_headers(initialize, None) == {}
    assert bridge.request_headers(initialize, "2025-11-25") == {}
    assert bridge.request_headers(call, None) == {}
    assert bridge.request_headers(call, "2025-11-25") == {"mcp-protocol-version": "2025-11-25"}


def test_modern_messages_mirror_version_method_and_name_from_the_body() -> None:
    meta = {bridge.PROTOCOL_VERSION_META_KEY: "2026-07-28"}
    call = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "memory_save", "arguments": {}, "_meta": meta},
    }
    listing = {"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"_meta": meta}}
    assert bridge.request_headers(call, "2025-11-25") == {
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "memory_save",
    }
    assert bridge.request_headers(listing, None) == {
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/list",
    }


async def lines_of(text: str) -> AsyncIterator[str]:
    for line in text.split("\n"):
        yield line


async def test_server_sent_events_yield_the_data_of_each_message_event() -> None:
    stream = (
        ": comment\n"
        'event: message\nid: 1\ndata: {"a": 1}\n\n'
        "event: ping\ndata: ignored\n\n"
        'data: {"b":\ndata: 2}\n\n'
        "retry: 100\n\n"
        'data:{"c": 3}'
    )
    assert [data async for data in bridge.sse_data(lines_of(stream))] == [
        '{"a": 1}',
        '{"b":\n2}',
        '{"c": 3}',
    ]
