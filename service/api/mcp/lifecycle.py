"""MCP tools on a namespace's lifecycle (seed 003): memory_timeline, memory_stats and
memory_cleanup."""

from __future__ import annotations

from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult

from service.api.mcp.session import ToolSession, tool, tool_result
from service.api.params import NamespaceParam
from service.api.tools import TOOLS
from service.core.sorting import SortLinksParam, parse_sort_links
from service.core.upkeep.lifecycle import AnchorParam, DryRunParam, ForceParam, WindowParam


def register(server: MCPServer[Any], session: ToolSession, prefix: str) -> None:
    for add in (_timeline, _stats, _cleanup):
        add(server, session, prefix)


def _timeline(server: MCPServer[Any], session: ToolSession, prefix: str) -> None:
    @tool(server, TOOLS["memory_timeline"], prefix)
    async def memory_timeline(
        ctx: Context[Any],
        memoryId: AnchorParam,
        window: WindowParam = 5,
        sortLinks: SortLinksParam = None,
        namespace: NamespaceParam = None,
    ) -> CallToolResult:
        runtime, who = session.open(ctx, "reader")
        sort = parse_sort_links(sortLinks)
        result = await runtime.memories.lifecycle.timeline(
            who.namespace_for(namespace), memoryId, window, sort
        )
        return tool_result(result)


def _stats(server: MCPServer[Any], session: ToolSession, prefix: str) -> None:
    @tool(server, TOOLS["memory_stats"], prefix)
    async def memory_stats(ctx: Context[Any], namespace: NamespaceParam = None) -> CallToolResult:
        runtime, who = session.open(ctx, "reader")
        return tool_result(await runtime.memories.lifecycle.stats(who.namespace_for(namespace)))


def _cleanup(server: MCPServer[Any], session: ToolSession, prefix: str) -> None:
    @tool(server, TOOLS["memory_cleanup"], prefix)
    async def memory_cleanup(
        ctx: Context[Any],
        force: ForceParam = False,
        dry_run: DryRunParam = False,
        namespace: NamespaceParam = None,
    ) -> CallToolResult:
        runtime, who = session.open(ctx, "writer")
        result = await runtime.memories.lifecycle.cleanup(
            who.namespace_for(namespace), force=force, dry_run=dry_run
        )
        return tool_result(result)
