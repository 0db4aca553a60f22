"""The MCP tool retrieve_context (docs/contract.md §5), registered from its input model and
result type."""

from __future__ import annotations

from typing import Any

from mcp.server import MCPServer

from service.api.mcp.session import ToolSession, model_tool
from service.api.tools import TOOLS
from service.core.results import ContextResult
from service.core.search_inputs import RetrieveInput


def register(server: MCPServer[Any], session: ToolSession, prefix: str) -> None:
    model_tool(
        server,
        session,
        prefix,
        TOOLS["retrieve_context"],
        RetrieveInput,
        ContextResult,
        "reader",
        lambda runtime, namespace, params: runtime.retrieval.retrieve(namespace, params),
    )
