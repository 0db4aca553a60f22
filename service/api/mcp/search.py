"""The MCP search tools of seed 002, memory_search and memory_fulltext_search, registered from
their input models and result types."""

from __future__ import annotations

from typing import Any

from mcp.server import MCPServer

from service.api.mcp.session import ToolSession, model_tool
from service.api.tools import TOOLS
from service.core.results import FulltextResult, SearchResult
from service.core.search_inputs import FulltextInput, SearchInput


def register(server: MCPServer[Any], session: ToolSession, prefix: str) -> None:
    model_tool(
        server,
        session,
        prefix,
        TOOLS["memory_search"],
        SearchInput,
        SearchResult,
        "reader",
        lambda runtime, namespace, params: runtime.retrieval.search(namespace, params),
    )
    model_tool(
        server,
        session,
        prefix,
        TOOLS["memory_fulltext_search"],
        FulltextInput,
        FulltextResult,
        "reader",
        lambda runtime, namespace, params: runtime.retrieval.fulltext(namespace, params),
    )
