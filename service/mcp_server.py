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
from service.fulltext import parse_keywords
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
    Tag,
    Tags,
    Term,
    Title,
    Weight,
)
from service.search_models import (
    Limit,
    MaxHops,
    MemoryFilters,
    Offset,
    Operator,
    Query,
    RetrieveFilters,
    RetrieveInput,
    RetrieveMode,
    SearchMode,
    TypeFilter,
    type_list,
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


def build_mcp_server(
    ref: RuntimeRef, prefix: str = "", search_enabled: bool = True
) -> MCPServer[Any]:
    """The MCP server with every memory tool, named with `prefix`; the two search tools only
    when `search.enabled`."""
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

    @server.tool(name=f"{prefix}retrieve_context")
    async def retrieve_context(
        ctx: Context[Any],
        query: Annotated[
            Query,
            Field(description="What to recall (1–10,000 chars).", examples=["OAuth2 JWT"]),
        ],
        search_mode: Annotated[
            RetrieveMode,
            Field(description="hybrid (all channels), vector, graph, keyword or kv."),
        ] = "hybrid",
        sort_by: Annotated[
            str,
            Field(
                description="timestamp (newest first, default) or relevance (score desc).",
                json_schema_extra={"enum": ["timestamp", "relevance"]},
            ),
        ] = "timestamp",
        type: Annotated[
            TypeFilter | None, Field(description="Only memories of this type (or types).")
        ] = None,
        filters: Annotated[
            RetrieveFilters | None,
            Field(
                description="date_from/date_to (ISO, inclusive, on created_at), tags (all "
                "required), types, min_score (memory importance; unknown counts as 50)."
            ),
        ] = None,
        limit: Annotated[Limit, Field(description="Maximum results (1–100).")] = 10,
        max_hops: Annotated[MaxHops, Field(description="Graph depth (1–5).")] = 2,
        anchors: Annotated[
            list[str] | None, Field(description="Memory ids or keys to start the graph from.")
        ] = None,
        sortLinks: SortLinks = None,
        namespace: Namespace = None,
    ) -> CallToolResult:
        """Recall context for the current task: merges vector similarity, keyword (BM25), exact
        key matches and memories linked to those (graph, score 1/(hops+0.5)), keeps the `limit`
        best, then orders them by `sort_by`."""
        arguments = {
            "query": query,
            "search_mode": search_mode,
            "sort_by": sort_by,
            "type": type,
            "filters": filters,
            "limit": limit,
            "max_hops": max_hops,
            "anchors": anchors,
            "sortLinks": sortLinks,
        }

        async def call(runtime: Runtime, principal: Principal) -> dict[str, Any]:
            principal.require("reader")
            params = RetrieveInput.model_validate(arguments)
            return await runtime.retrieval.retrieve(principal.namespace_for(namespace), params)

        return await run("retrieve_context", ctx, call)

    if search_enabled:
        _add_search_tools(server, prefix, run)
    return server


Runner = Callable[
    [str, Context[Any], Callable[[Runtime, Principal], Awaitable[dict[str, Any]]]],
    Awaitable[CallToolResult],
]


def _add_search_tools(server: MCPServer[Any], prefix: str, run: Runner) -> None:
    """memory_search and memory_fulltext_search (seed 002)."""

    @server.tool(name=f"{prefix}memory_search")
    async def memory_search(
        ctx: Context[Any],
        query: Annotated[Query, Field(description="What to search for.", examples=["auth bug"])],
        mode: Annotated[
            SearchMode,
            Field(description="hybrid (BM25 + vector, RRF k=60), bm25 or vector."),
        ] = "hybrid",
        type: Annotated[
            TypeFilter | None, Field(description="Only memories of this type (or types).")
        ] = None,
        tags: Annotated[
            list[Tag] | None, Field(description="Only memories with all these tags.")
        ] = None,
        limit: Annotated[Limit, Field(description="Maximum results (1–100).")] = 10,
        offset: Annotated[Offset, Field(description="Results to skip (paging).")] = 0,
        sortLinks: SortLinks = None,
        namespace: Namespace = None,
    ) -> CallToolResult:
        """Search memories by meaning and keywords; best match first, `total` counts all
        matches before paging."""

        async def call(runtime: Runtime, principal: Principal) -> dict[str, Any]:
            principal.require("reader")
            filters = MemoryFilters(types=type_list(type), tags=tuple(tags or ()))
            return await runtime.retrieval.search(
                principal.namespace_for(namespace),
                query,
                mode,
                filters,
                limit,
                offset,
                sortLinks,
            )

        return await run("memory_search", ctx, call)

    @server.tool(name=f"{prefix}memory_fulltext_search")
    async def memory_fulltext_search(
        ctx: Context[Any],
        keywords: Annotated[
            list[str] | str,
            Field(
                description="Terms to find: a list, or one comma-separated string. Matched as "
                "literal terms (no query syntax).",
                examples=[["neo4j", "fulltext"], "neo4j, fulltext"],
            ),
        ],
        operator: Annotated[
            Operator, Field(description="OR (any keyword, default) or AND (all keywords).")
        ] = "OR",
        type: Annotated[
            TypeFilter | None, Field(description="Only memories of this type (or types).")
        ] = None,
        limit: Annotated[Limit, Field(description="Maximum results (1–100).")] = 10,
        offset: Annotated[Offset, Field(description="Results to skip (paging).")] = 0,
        sortLinks: SortLinks = None,
        namespace: Namespace = None,
    ) -> CallToolResult:
        """Full-text search with highlighted excerpts (`<mark>` around each matched term)."""

        async def call(runtime: Runtime, principal: Principal) -> dict[str, Any]:
            principal.require("reader")
            return await runtime.retrieval.fulltext(
                principal.namespace_for(namespace),
                parse_keywords(keywords),
                operator,
                MemoryFilters(types=type_list(type)),
                limit,
                offset,
                sortLinks,
            )

        return await run("memory_fulltext_search", ctx, call)


def _principal(runtime: Runtime, ctx: Context[Any]) -> Principal:
    request = ctx.request_context.request
    headers = getattr(request, "headers", None)
    if headers is None:
        return local_principal()
    return runtime.authenticator.authenticate(headers)
