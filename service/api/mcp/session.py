"""What every MCP tool shares: the opening checks of a call (runtime, caller, memory switch,
role), the shape of a successful result, and tools registered from their input and result types."""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Annotated, Any, TypeVar, get_type_hints

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, TextContent
from pydantic import ValidationError

from service.api.params import NamespaceParam
from service.api.tools import ToolSpec
from service.app import Runtime, RuntimeRef
from service.auth import Principal
from service.config import Role
from service.core.inputs import ToolInput
from service.errors import invalid_from_validation

M = TypeVar("M", bound=ToolInput)


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
        runtime, principal = self.caller(ctx)
        runtime.memories.require_enabled()
        principal.require(role)
        return runtime, principal

    def caller(self, ctx: Context[Any]) -> tuple[Runtime, Principal]:
        """The runtime and who calls: the API key's principal over HTTP, stdio's otherwise."""
        runtime = self._ref.get()
        headers = getattr(ctx.request_context.request, "headers", None)
        if headers is None:
            return runtime, runtime.authenticator.stdio_principal()
        return runtime, runtime.authenticator.authenticate(headers)


def model_tool(
    server: MCPServer[Any],
    session: ToolSession,
    prefix: str,
    spec: ToolSpec,
    model: type[M],
    result: Any,
    role: Role,
    run: Callable[[Runtime, str, M], Awaitable[Mapping[str, Any]]],
) -> None:
    """Register the tool `spec` with the parameters of its input `model` and `namespace`, and
    the output schema of its `result` type (each declared once, there); a call validates its
    arguments into the model and answers with what `run` returns, which the SDK validates
    against `result` (an answer the schema does not describe is a bug, not a success)."""

    async def call(ctx: Context[Any], **arguments: Any) -> CallToolResult:
        runtime, who = session.open(ctx, role)
        namespace = arguments.pop("namespace")
        try:
            params = model.model_validate(arguments)
        except ValidationError as exc:
            raise invalid_from_validation(exc.errors()) from exc
        return tool_result(await run(runtime, who.namespace_for(namespace), params))

    returns = Annotated[CallToolResult, result]
    parameters = [_context_parameter(), *_model_parameters(model), _namespace_parameter()]
    call.__signature__ = inspect.Signature(parameters, return_annotation=returns)  # type: ignore[attr-defined]
    call.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": returns}
    call.__name__ = spec.name
    server.tool(
        name=f"{prefix}{spec.name}", description=spec.description, annotations=spec.annotations()
    )(call)


def _model_parameters(model: type[ToolInput]) -> list[inspect.Parameter]:
    """The model's fields as keyword parameters; a field whose null means absent takes null."""
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
            annotation=hints[name] | None if name in model.nullable else hints[name],
        )
        for name, field in model.model_fields.items()
    ]


def _context_parameter() -> inspect.Parameter:
    return inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Context)


def _namespace_parameter() -> inspect.Parameter:
    return inspect.Parameter(
        "namespace", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=NamespaceParam
    )
