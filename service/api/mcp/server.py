"""The MCP server: every tool family registered on one `MCPServer`, and the one place where a
tool's failure (argument validation included) becomes `isError` with the §2 envelope."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from mcp.server import MCPServer
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import (
    CallToolResult,
    InputRequiredResult,
    ListResourcesResult,
    PaginatedRequestParams,
)
from pydantic import ValidationError

from service.api.limits_schema import state_limits
from service.api.mcp import lifecycle, memories, prompts, resources, retrieve, search
from service.api.mcp.session import ToolSession, tool_result
from service.api.metrics import ERRORS, TOOL_LATENCY
from service.api.tools import TOOLS
from service.app import RuntimeRef
from service.config import LimitsSettings
from service.errors import (
    InternalError,
    InvalidParameter,
    MnemographError,
    RequestTimeout,
    error_envelope,
    invalid_from_validation,
    unknown_parameter,
)
from service.logs import REQUEST_ID
from service.version import VERSION

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "Mnemograph stores memories (notes, decisions, designs, traces) with weighted links "
    "between them. Save with memory_save, fetch with memory_get, connect with memory_link, "
    "recall with retrieve_context; memory_timeline, memory_stats and memory_cleanup look after "
    "the store."
)


def error_result(error: MnemographError, tool: str) -> CallToolResult:
    ERRORS.labels("mcp", error.error_type).inc()
    spec = TOOLS.get(tool)
    return tool_result(error_envelope(error, spec.list_fields if spec else ()), is_error=True)


class EnvelopeMCPServer(MCPServer[Any]):
    """An MCPServer whose tool failures carry the §2 envelope."""

    def __init__(self, prefix: str, ref: RuntimeRef, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._prefix = prefix
        self._ref = ref
        self.session = ToolSession(ref)

    async def _handle_list_resources(
        self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        """The caller's most recent memories (the SDK's own list knows no caller)."""
        context = Context(request_context=ctx, mcp_server=self)
        return ListResourcesResult(resources=await resources.recent(self.session, context))

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        """The tool's answer within `limits.request_timeout_s`, failures as the envelope."""
        timeout_s = self._ref.get().settings.limits.request_timeout_s
        tool = name.removeprefix(self._prefix)
        started = time.perf_counter()
        try:
            async with asyncio.timeout(timeout_s):
                return await self._call(name, arguments, context)
        except TimeoutError:
            return error_result(RequestTimeout(timeout_s), tool)
        finally:
            if tool in TOOLS:
                TOOL_LATENCY.labels(tool).observe(time.perf_counter() - started)

    async def _call(
        self, name: str, arguments: dict[str, Any], context: Context[Any] | None
    ) -> CallToolResult | InputRequiredResult:
        unknown = self._unknown_argument(name, arguments)
        if unknown is not None:
            return error_result(unknown, name.removeprefix(self._prefix))
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            tool = name.removeprefix(self._prefix)
            cause = exc.__cause__
            # The SDK's check of the arguments; past it, a ValidationError is of the answer.
            if isinstance(cause, ValidationError) and not isinstance(exc, UnexpectedToolError):
                return error_result(invalid_from_validation(cause.errors()), tool)
            if isinstance(cause, MnemographError):
                return error_result(cause, tool)
            if cause is None and str(exc).startswith("Unknown tool"):
                raise
            log.exception("tool %s failed", name, exc_info=cause or exc)
            return error_result(InternalError(REQUEST_ID.get()), tool)

    def publish_rules(self, limits: LimitsSettings) -> None:
        """Input schemas that state what a call is checked against: no unknown argument (see
        `_unknown_argument`) and the configured limits. A parameter declared `X | None` has its
        description and examples inside the `anyOf` branch of X; they go on the parameter
        itself, where clients and models read them."""
        for registered in self._tool_manager.list_tools():
            registered.parameters["additionalProperties"] = False
            properties: dict[str, Any] = registered.parameters.get("properties", {})
            state_limits(properties, limits)
            for prop in properties.values():
                for branch in prop.get("anyOf", []):
                    for field in ("description", "examples"):
                        if field in branch and field not in prop:
                            prop[field] = branch[field]

    def _unknown_argument(self, name: str, arguments: dict[str, Any]) -> InvalidParameter | None:
        """An argument the tool does not take is refused, as the HTTP API refuses an unknown
        field, rather than ignored: a misspelt `sortlinks` must not quietly become the default."""
        tool = self._tool_manager.get_tool(name)
        if tool is None:
            return None
        known = tool.parameters.get("properties", {})
        extra = next((argument for argument in arguments if argument not in known), None)
        if extra is None:
            return None
        return unknown_parameter(extra, arguments[extra])


def build_mcp_server(
    ref: RuntimeRef,
    prefix: str = "",
    search_enabled: bool = True,
    limits: LimitsSettings | None = None,
) -> MCPServer[Any]:
    """The MCP server with every memory tool, named with `prefix`; the two search tools only
    when `search.enabled`; input schemas stating `limits` (the defaults when not given)."""
    server = EnvelopeMCPServer(
        prefix,
        ref,
        name="mnemograph",
        version=VERSION,
        instructions=INSTRUCTIONS,
        warn_on_duplicate_tools=False,
    )
    session = server.session
    memories.register(server, session, prefix)
    resources.register(server, session)
    prompts.register(server, session)
    retrieve.register(server, session, prefix)
    lifecycle.register(server, session, prefix)
    if search_enabled:
        search.register(server, session, prefix)
    server.publish_rules(limits or LimitsSettings())
    return server
