"""MCP tools on a namespace's lifecycle (seed 003): memory_timeline, memory_stats and
memory_cleanup, each registered from its input model and result type."""

from __future__ import annotations

from typing import Any

from mcp.server import MCPServer

from service.api.mcp.session import ToolSession, model_tool
from service.api.tools import TOOLS
from service.app import Runtime
from service.core.results import CleanupResult, StatsResult, TimelineResult
from service.core.tool_inputs import CleanupInput, StatsInput, TimelineInput


def register(server: MCPServer[Any], session: ToolSession, prefix: str) -> None:
    timeline, stats, cleanup = (
        TOOLS[name] for name in ("memory_timeline", "memory_stats", "memory_cleanup")
    )
    model_tool(
        server, session, prefix, timeline, TimelineInput, TimelineResult, "reader", _timeline
    )
    model_tool(server, session, prefix, stats, StatsInput, StatsResult, "reader", _stats)
    model_tool(server, session, prefix, cleanup, CleanupInput, CleanupResult, "writer", _cleanup)


async def _timeline(runtime: Runtime, namespace: str, params: TimelineInput) -> TimelineResult:
    return await runtime.memories.lifecycle.timeline(
        namespace, params.memoryId, params.window, params.sortLinks
    )


async def _stats(runtime: Runtime, namespace: str, _: StatsInput) -> StatsResult:
    return await runtime.memories.lifecycle.stats(namespace)


async def _cleanup(runtime: Runtime, namespace: str, params: CleanupInput) -> CleanupResult:
    return await runtime.memories.lifecycle.cleanup(
        namespace, force=params.force, dry_run=params.dry_run
    )
