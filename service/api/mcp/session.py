"""What every MCP tool shares: the opening checks of a call (runtime, caller, memory switch,
role) and the shape of a successful result."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, TextContent

from service.api.tools import ToolSpec
from service.app import Runtime, RuntimeRef
from service.auth import Principal
from service.config import Role


def tool_result(payload: Mapping[str, Any], is_error: bool = False) -> CallToolResult:
    """A tool's JSON payload, as structured content and as text."""
    text = json.dumps(payload, ensure_ascii=False)
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=dict(payload),
        is_error=is_error,
    )


class ToolSession:
    """What every tool does first: the runtime, the caller, the memory switch, the role."""

    def __init__(self, ref: RuntimeRef) -> None:
        self._ref = ref

    def open(self, ctx: Context[Any], role: Role) -> tuple[Runtime, Principal]:
        runtime = self._ref.get()
        principal = _principal(runtime, ctx)
        runtime.memories.require_enabled()
        principal.require(role)
        return runtime, principal


def _principal(runtime: Runtime, ctx: Context[Any]) -> Principal:
    request = ctx.request_context.request
    headers = getattr(request, "headers", None)
    if headers is None:
        return runtime.authenticator.stdio_principal()
    return runtime.authenticator.authenticate(headers)


def tool(server: MCPServer[Any], spec: ToolSpec, prefix: str) -> Any:
    """The decorator that registers a tool with its name, description and hints from TOOLS."""
    return server.tool(
        name=f"{prefix}{spec.name}", description=spec.description, annotations=spec.annotations()
    )
