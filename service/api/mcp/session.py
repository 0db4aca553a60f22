"""What every MCP tool shares: the opening checks of a call (runtime, caller, memory switch,
role), the shape of a successful result, and tools registered from their input models."""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar, get_type_hints

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel

from service.api.params import NamespaceParam
from service.api.tools import ToolSpec
from service.app import Runtime, RuntimeRef
from service.auth import Principal
from service.config import Role

M = TypeVar("M", bound=BaseModel)


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


def model_tool(
    server: MCPServer[Any],
    session: ToolSession,
    prefix: str,
    spec: ToolSpec,
    model: type[M],
    role: Role,
    run: Callable[[Runtime, str, M], Awaitable[Mapping[str, Any]]],
) -> None:
    """Register the tool `spec` with the parameters of its input `model` (names, types, bounds,
    descriptions and defaults declared once, there) and `namespace`; a call validates its
    arguments into the model and answers with what `run` returns."""

    async def call(ctx: Context[Any], **arguments: Any) -> CallToolResult:
        runtime, who = session.open(ctx, role)
        namespace = arguments.pop("namespace")
        params = model.model_validate(arguments)
        return tool_result(await run(runtime, who.namespace_for(namespace), params))

    parameters = [_context_parameter(), *_model_parameters(model), _namespace_parameter()]
    call.__signature__ = inspect.Signature(parameters, return_annotation=CallToolResult)  # type: ignore[attr-defined]
    call.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": CallToolResult}
    call.__name__ = spec.name
    tool(server, spec, prefix)(call)


def _model_parameters(model: type[BaseModel]) -> list[inspect.Parameter]:
    hints = get_type_hints(model, include_extras=True)
    return [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            default=(
                inspect.Parameter.empty
                if field.is_required()
                else field.get_default(call_default_factory=True)
            ),
            annotation=hints[name],
        )
        for name, field in model.model_fields.items()
    ]


def _context_parameter() -> inspect.Parameter:
    return inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Context)


def _namespace_parameter() -> inspect.Parameter:
    return inspect.Parameter(
        "namespace", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=NamespaceParam
    )
