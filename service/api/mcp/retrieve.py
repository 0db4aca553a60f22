"""The MCP tool retrieve_context (docs/contract.md §5)."""

from __future__ import annotations

from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult

from service.api.mcp.session import ToolSession, tool, tool_result
from service.api.params import NamespaceParam
from service.api.tools import TOOLS
from service.core.search_inputs import (
    AnchorsParam,
    IncludeSupersededParam,
    LimitParam,
    MaxHopsParam,
    QueryParam,
    RetrieveFiltersParam,
    RetrieveInput,
    RetrieveModeParam,
    SortByParam,
    TypeFilterParam,
)
from service.core.sorting import SortLinksParam


def register(server: MCPServer[Any], session: ToolSession, prefix: str) -> None:
    @tool(server, TOOLS["retrieve_context"], prefix)
    async def retrieve_context(
        ctx: Context[Any],
        query: QueryParam,
        search_mode: RetrieveModeParam = "hybrid",
        sort_by: SortByParam = "timestamp",
        type: TypeFilterParam = None,
        filters: RetrieveFiltersParam = None,
        limit: LimitParam = 10,
        max_hops: MaxHopsParam = 2,
        anchors: AnchorsParam = None,
        sortLinks: SortLinksParam = None,
        include_superseded: IncludeSupersededParam = False,
        namespace: NamespaceParam = None,
    ) -> CallToolResult:
        runtime, who = session.open(ctx, "reader")
        params = RetrieveInput.model_validate(
            {
                "query": query,
                "search_mode": search_mode,
                "sort_by": sort_by,
                "type": type,
                "filters": filters,
                "limit": limit,
                "max_hops": max_hops,
                "anchors": anchors,
                "sortLinks": sortLinks,
                "include_superseded": include_superseded,
            }
        )
        result = await runtime.retrieval.retrieve(who.namespace_for(namespace), params)
        return tool_result(result)
