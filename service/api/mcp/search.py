"""The MCP search tools of seed 002: memory_search and memory_fulltext_search."""

from __future__ import annotations

from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult

from service.api.mcp.session import ToolSession, tool, tool_result
from service.api.params import NamespaceParam
from service.api.tools import TOOLS
from service.core.search_inputs import (
    FulltextInput,
    IncludeSupersededParam,
    KeywordsParam,
    LimitParam,
    OffsetParam,
    OperatorParam,
    SearchInput,
    SearchModeParam,
    SearchQueryParam,
    TagsFilterParam,
    TypeFilterParam,
)
from service.core.sorting import SortLinksParam


def register(server: MCPServer[Any], session: ToolSession, prefix: str) -> None:
    @tool(server, TOOLS["memory_search"], prefix)
    async def memory_search(
        ctx: Context[Any],
        query: SearchQueryParam,
        mode: SearchModeParam = "hybrid",
        type: TypeFilterParam = None,
        tags: TagsFilterParam = None,
        limit: LimitParam = 10,
        offset: OffsetParam = 0,
        sortLinks: SortLinksParam = None,
        include_superseded: IncludeSupersededParam = False,
        namespace: NamespaceParam = None,
    ) -> CallToolResult:
        runtime, who = session.open(ctx, "reader")
        params = SearchInput(
            query=query,
            mode=mode,
            type=type,
            tags=tags,
            limit=limit,
            offset=offset,
            sortLinks=sortLinks,
            include_superseded=include_superseded,
        )
        return tool_result(await runtime.retrieval.search(who.namespace_for(namespace), params))

    @tool(server, TOOLS["memory_fulltext_search"], prefix)
    async def memory_fulltext_search(
        ctx: Context[Any],
        keywords: KeywordsParam,
        operator: OperatorParam = "OR",
        type: TypeFilterParam = None,
        limit: LimitParam = 10,
        offset: OffsetParam = 0,
        sortLinks: SortLinksParam = None,
        include_superseded: IncludeSupersededParam = False,
        namespace: NamespaceParam = None,
    ) -> CallToolResult:
        runtime, who = session.open(ctx, "reader")
        params = FulltextInput(
            keywords=keywords,
            operator=operator,
            type=type,
            limit=limit,
            offset=offset,
            sortLinks=sortLinks,
            include_superseded=include_superseded,
        )
        return tool_result(await runtime.retrieval.fulltext(who.namespace_for(namespace), params))
