"""The MCP adapter: `memory_*` tools on an MCPServer, for stdio and streamable HTTP.

Each tool validates its arguments, calls one service method and returns the §2 envelope;
every failure (including argument validation) becomes `isError` with the envelope as JSON.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, InputRequiredResult, TextContent
from pydantic import Field, ValidationError

from service.app import Runtime
from service.auth import Principal, local_principal
from service.errors import (
    InternalError,
    InvalidParameter,
    MnemographError,
    error_envelope,
    invalid_from_validation,
)
from service.models import (
    Content,
    LinkSpec,
    LinkType,
    MemoryId,
    MemoryKey,
    MemoryType,
    SaveInput,
    Score,
    SessionId,
    Summary,
    Tags,
    Term,
    Title,
    Weight,
)
from service.sorting import parse_sort_links

log = logging.getLogger(__name__)

# The list fields each tool returns, empty, on failure (CONTRACT §2).
LIST_FIELDS: dict[str, tuple[str, ...]] = {
    "memory_get": ("memories", "missing"),
    "memory_delete": ("missing",),
    "memory_search": ("results",),
    "memory_fulltext_search": ("results",),
    "retrieve_context": ("results",),
    "memory_timeline": ("timeline",),
    "memory_cleanup": ("evictedIds",),
}

# Typed loosely on purpose: `parse_sort_links` must see 1, "yes" or [] to refuse them.
SortLinks = Annotated[
    Any,
    Field(
        description=(
            "Sort each memory's links by link weight × memory score (desc), then weight, "
            'then key. true (default) or false; "true"/"false" strings are accepted.'
        ),
        json_schema_extra={
            "type": ["boolean", "string", "null"],
            "default": True,
            "examples": [True, False],
        },
    ),
]
Namespace = Annotated[
    str | None,
    Field(description="Admin keys only: the namespace to act in (default: the key's own)."),
]


class RuntimeRef:
    """The runtime, set once the process has started its stores."""

    def __init__(self) -> None:
        self._runtime: Runtime | None = None

    def set(self, runtime: Runtime | None) -> None:
        self._runtime = runtime

    def get(self) -> Runtime:
        if self._runtime is None:
            raise InternalError()
        return self._runtime


def tool_result(payload: dict[str, Any], is_error: bool = False) -> CallToolResult:
    text = json.dumps(payload, ensure_ascii=False)
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=payload,
        is_error=is_error,
    )


def error_result(error: MnemographError, tool: str) -> CallToolResult:
    return tool_result(error_envelope(error, LIST_FIELDS.get(tool, ())), is_error=True)


class EnvelopeMCPServer(MCPServer[Any]):
    """An MCPServer whose argument-validation failures carry the §2 envelope."""

    def __init__(self, prefix: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._prefix = prefix

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            tool = name.removeprefix(self._prefix)
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                return error_result(invalid_from_validation(cause.errors()), tool)
            if isinstance(cause, MnemographError):
                return error_result(cause, tool)
            if cause is None and str(exc).startswith("Unknown tool"):
                raise
            log.exception("tool %s failed", name, exc_info=cause or exc)
            return error_result(InternalError(), tool)


def build_mcp_server(ref: RuntimeRef, prefix: str = "") -> MCPServer[Any]:
    """The MCP server with every memory tool, named with `prefix`."""
    server = EnvelopeMCPServer(
        prefix,
        name="mnemograph",
        instructions=(
            "Mnemograph stores memories (notes, decisions, designs, traces) with weighted links "
            "between them. Save with memory_save, fetch with memory_get, connect with memory_link."
        ),
        warn_on_duplicate_tools=False,
    )

    async def run(
        tool: str,
        ctx: Context[Any],
        call: Callable[[Runtime, Principal], Awaitable[dict[str, Any]]],
    ) -> CallToolResult:
        try:
            runtime = ref.get()
            principal = _principal(runtime, ctx)
            runtime.memories.require_enabled()
            return tool_result(await call(runtime, principal))
        except MnemographError as error:
            return error_result(error, tool)
        except ValidationError as error:
            return error_result(invalid_from_validation(error.errors()), tool)

    @server.tool(name=f"{prefix}memory_save")
    async def memory_save(
        ctx: Context[Any],
        content: Annotated[
            Content,
            Field(
                description="The memory text (≤ 100 KB). <private>…</private> spans are redacted.",
                examples=["Decided to use sql.js for zero native deps"],
            ),
        ],
        title: Annotated[Title, Field(description="Short title (≤ 512 chars).")] = "",
        type: Annotated[
            MemoryType,
            Field(
                description="Memory type, [a-z0-9_-]{1,64}.",
                examples=["decision", "design", "bugfix", "feature", "observation"],
            ),
        ] = "note",
        key: Annotated[
            MemoryKey | None,
            Field(description="Unique key in the namespace (upsert by key); derived when absent."),
        ] = None,
        summary: Annotated[
            Summary | None, Field(description="≤ 2,000 chars; derived from content when absent.")
        ] = None,
        tags: Annotated[
            Tags | None, Field(description="≤ 32 tags of ≤ 64 chars.", examples=[["arch"]])
        ] = None,
        score: Annotated[
            Score | None, Field(description="Importance 0–100; null means unknown.")
        ] = None,
        metadata: Annotated[
            dict[str, Any] | None, Field(description="Any JSON object ≤ 16 KB.")
        ] = None,
        session_id: Annotated[
            SessionId | None, Field(description="The agent session this memory belongs to.")
        ] = None,
        links: Annotated[
            list[LinkSpec] | None,
            Field(
                description="Links to create: [{key or id, weight (0.5), type (related), term}].",
                examples=[[{"key": "decision:use-sql-js:1a2b3c4d", "weight": 0.8}]],
            ),
        ] = None,
        id: Annotated[
            MemoryId | None,
            Field(description="UUID to use when creating (server-generated otherwise)."),
        ] = None,
        namespace: Namespace = None,
    ) -> CallToolResult:
        """Save a memory (upsert by key). It is vectorised and indexed before this returns."""
        arguments = {
            "content": content,
            "title": title,
            "type": type,
            "key": key,
            "summary": summary,
            "tags": tags or [],
            "score": score,
            "metadata": metadata or {},
            "session_id": session_id,
            "links": links or [],
            "id": id,
        }

        async def call(runtime: Runtime, principal: Principal) -> dict[str, Any]:
            principal.require("writer")
            data = SaveInput.model_validate(arguments)
            return await runtime.memories.save(principal.namespace_for(namespace), data)

        return await run("memory_save", ctx, call)

    @server.tool(name=f"{prefix}memory_get")
    async def memory_get(
        ctx: Context[Any],
        ids: Annotated[list[str] | None, Field(description="Memory ids to fetch.")] = None,
        keys: Annotated[list[str] | None, Field(description="Memory keys to fetch.")] = None,
        key: Annotated[str | None, Field(description="One memory key to fetch.")] = None,
        sortLinks: SortLinks = None,
        namespace: Namespace = None,
    ) -> CallToolResult:
        """Fetch full memories (content, metadata, links) by ids or keys; unknown ones are
        listed in `missing`. Updates access time and count."""

        async def call(runtime: Runtime, principal: Principal) -> dict[str, Any]:
            principal.require("reader")
            sort = parse_sort_links(sortLinks)
            wanted_keys = [*(keys or []), *([key] if key else [])]
            if not ids and not wanted_keys:
                raise InvalidParameter("memory_get needs 'ids', 'keys' or 'key'")
            return await runtime.memories.get(
                principal.namespace_for(namespace), ids=ids or [], keys=wanted_keys, sort=sort
            )

        return await run("memory_get", ctx, call)

    @server.tool(name=f"{prefix}memory_link")
    async def memory_link(
        ctx: Context[Any],
        from_: Annotated[
            str, Field(validation_alias="from", description="Source memory id or key.")
        ],
        to: Annotated[str, Field(description="Target memory id or key.")],
        weight: Annotated[Weight, Field(description="Link weight 0–1.")] = 0.5,
        type: Annotated[LinkType, Field(description="Link type.")] = "related",
        term: Annotated[Term | None, Field(description="Optional short label.")] = None,
        remove: Annotated[bool, Field(description="Remove the link instead.")] = False,
        namespace: Namespace = None,
    ) -> CallToolResult:
        """Create or update (weight, term) a weighted link between two memories, or remove it."""

        async def call(runtime: Runtime, principal: Principal) -> dict[str, Any]:
            principal.require("writer")
            return await runtime.memories.link(
                principal.namespace_for(namespace), from_, to, weight, type, term, remove
            )

        return await run("memory_link", ctx, call)

    @server.tool(name=f"{prefix}memory_delete")
    async def memory_delete(
        ctx: Context[Any],
        ids: Annotated[list[str] | None, Field(description="Memory ids to delete.")] = None,
        keys: Annotated[list[str] | None, Field(description="Memory keys to delete.")] = None,
        namespace: Namespace = None,
    ) -> CallToolResult:
        """Delete memories with their links and vectors; unknown ones are listed in `missing`."""

        async def call(runtime: Runtime, principal: Principal) -> dict[str, Any]:
            principal.require("writer")
            if not ids and not keys:
                raise InvalidParameter("memory_delete needs 'ids' or 'keys'")
            return await runtime.memories.delete(
                principal.namespace_for(namespace), ids=ids or [], keys=keys or []
            )

        return await run("memory_delete", ctx, call)

    return server


def _principal(runtime: Runtime, ctx: Context[Any]) -> Principal:
    request = ctx.request_context.request
    headers = getattr(request, "headers", None)
    if headers is None:
        return local_principal()
    return runtime.authenticator.authenticate(headers)
