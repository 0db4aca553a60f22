"""MCP tools on single memories: memory_save, memory_get, memory_link, memory_delete."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from service.api.mcp.session import ToolSession, tool, tool_result
from service.api.params import NamespaceParam
from service.api.tools import TOOLS
from service.core.models import (
    ContentParam,
    IdParam,
    KeyParam,
    LinksParam,
    LinkTypeParam,
    MetadataParam,
    SaveInput,
    ScoreParam,
    SessionParam,
    SummaryParam,
    SupersedesParam,
    TagsParam,
    TermParam,
    TitleParam,
    TypeParam,
    WeightParam,
)
from service.core.scalars import Flag
from service.core.sorting import SortLinksParam, parse_sort_links

Ids = Annotated[
    list[str] | None,
    Field(description="Memory ids.", examples=[["0b6f3c9e-8f1e-4c55-9a57-2f1d7f0c1a2b"]]),
]
Keys = Annotated[
    list[str] | None, Field(description="Memory keys.", examples=[["decision:use-sql-js:1a2b3c4d"]])
]


def register(server: MCPServer[Any], session: ToolSession, prefix: str) -> None:
    for add in (_save, _get, _link, _delete):
        add(server, session, prefix)


def _save(server: MCPServer[Any], session: ToolSession, prefix: str) -> None:
    @tool(server, TOOLS["memory_save"], prefix)
    async def memory_save(
        ctx: Context[Any],
        content: ContentParam,
        title: TitleParam = "",
        type: TypeParam = "note",
        key: KeyParam = None,
        summary: SummaryParam = None,
        tags: TagsParam | None = None,
        score: ScoreParam = None,
        metadata: MetadataParam | None = None,
        session_id: SessionParam = None,
        links: LinksParam | None = None,
        supersedes: SupersedesParam | None = None,
        id: IdParam = None,
        namespace: NamespaceParam = None,
    ) -> CallToolResult:
        runtime, who = session.open(ctx, "writer")
        data = SaveInput.model_validate(
            {
                "content": content,
                "title": title,
                "type": type,
                "key": key,
                "summary": summary,
                "tags": tags,
                "score": score,
                "metadata": metadata,
                "session_id": session_id,
                "links": links,
                "supersedes": supersedes,
                "id": id,
            }
        )
        return tool_result(await runtime.memories.save(who.namespace_for(namespace), data))


def _get(server: MCPServer[Any], session: ToolSession, prefix: str) -> None:
    @tool(server, TOOLS["memory_get"], prefix)
    async def memory_get(
        ctx: Context[Any],
        ids: Ids = None,
        keys: Keys = None,
        key: Annotated[
            str | None,
            Field(description="One memory key.", examples=["decision:use-sql-js:1a2b3c4d"]),
        ] = None,
        sortLinks: SortLinksParam = None,
        namespace: NamespaceParam = None,
    ) -> CallToolResult:
        runtime, who = session.open(ctx, "reader")
        sort = parse_sort_links(sortLinks)
        result = await runtime.memories.get(
            who.namespace_for(namespace), ids=ids or [], keys=keys or [], key=key, sort=sort
        )
        return tool_result(result)


def _link(server: MCPServer[Any], session: ToolSession, prefix: str) -> None:
    @tool(server, TOOLS["memory_link"], prefix)
    async def memory_link(
        ctx: Context[Any],
        from_: Annotated[
            str,
            Field(
                validation_alias="from",
                description="Source memory id or key.",
                examples=["decision:use-sql-js:1a2b3c4d"],
            ),
        ],
        to: Annotated[
            str,
            Field(
                description="Target memory id or key.", examples=["design:storage-layer:5e6f7a8b"]
            ),
        ],
        weight: WeightParam = 0.5,
        type: LinkTypeParam = "related",
        term: TermParam = None,
        remove: Annotated[
            Flag, Field(description="Remove the link instead.", examples=[False])
        ] = False,
        namespace: NamespaceParam = None,
    ) -> CallToolResult:
        runtime, who = session.open(ctx, "writer")
        result = await runtime.memories.link(
            who.namespace_for(namespace), from_, to, weight, type, term, remove
        )
        return tool_result(result)


def _delete(server: MCPServer[Any], session: ToolSession, prefix: str) -> None:
    @tool(server, TOOLS["memory_delete"], prefix)
    async def memory_delete(
        ctx: Context[Any], ids: Ids = None, keys: Keys = None, namespace: NamespaceParam = None
    ) -> CallToolResult:
        runtime, who = session.open(ctx, "writer")
        result = await runtime.memories.delete(
            who.namespace_for(namespace), ids=ids or [], keys=keys or []
        )
        return tool_result(result)
