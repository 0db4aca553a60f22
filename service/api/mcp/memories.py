"""MCP tools on single memories: memory_save, memory_get, memory_link, memory_delete, each
registered from its input model and result type."""

from __future__ import annotations

from typing import Any

from mcp.server import MCPServer

from service.api.mcp.session import ToolSession, model_tool
from service.api.tools import TOOLS
from service.app import Runtime
from service.core.models import SaveInput
from service.core.results import DeleteResult, GetResult, LinkResult, SaveResult
from service.core.tool_inputs import DeleteInput, GetInput, LinkInput


def register(server: MCPServer[Any], session: ToolSession, prefix: str) -> None:
    model_tool(
        server, session, prefix, TOOLS["memory_save"], SaveInput, SaveResult, "writer", _save
    )
    model_tool(server, session, prefix, TOOLS["memory_get"], GetInput, GetResult, "reader", _get)
    model_tool(
        server, session, prefix, TOOLS["memory_link"], LinkInput, LinkResult, "writer", _link
    )
    model_tool(
        server,
        session,
        prefix,
        TOOLS["memory_delete"],
        DeleteInput,
        DeleteResult,
        "writer",
        _delete,
    )


async def _save(runtime: Runtime, namespace: str, params: SaveInput) -> SaveResult:
    return await runtime.memories.save(namespace, params)


async def _get(runtime: Runtime, namespace: str, params: GetInput) -> GetResult:
    return await runtime.memories.get(
        namespace, ids=params.ids, keys=params.keys, key=params.key, sort=params.sortLinks
    )


async def _link(runtime: Runtime, namespace: str, params: LinkInput) -> LinkResult:
    return await runtime.memories.link(
        namespace,
        params.source,
        params.to,
        params.weight,
        params.type,
        params.term,
        params.remove,
    )


async def _delete(runtime: Runtime, namespace: str, params: DeleteInput) -> DeleteResult:
    return await runtime.memories.delete(namespace, ids=params.ids, keys=params.keys)
