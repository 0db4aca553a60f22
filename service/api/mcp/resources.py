"""MCP resources: each memory readable as `memory://{key}` within the caller's namespace (the
tools' keys and roles: a reader may read), and `resources/list` offering its most recent ones."""

from __future__ import annotations

import json
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.shared.exceptions import MCPError
from mcp.shared.uri_template import UriTemplate
from mcp_types import INVALID_REQUEST, Resource

from service.api.mcp.session import ToolSession
from service.errors import MnemographError, NotFound

TEMPLATE = "memory://{key}"
RECENT = 50  # memories resources/list offers, newest first
_URI = UriTemplate.parse(TEMPLATE)


def register(server: MCPServer[Any], session: ToolSession) -> None:
    @server.resource(
        TEMPLATE,
        name="memory",
        description="A memory by key, in the caller's namespace: its full JSON (the Memory of "
        "memory_get, links sorted). Reading it counts as an access, as memory_get does.",
        mime_type="application/json",
    )
    async def memory(key: str, ctx: Context[Any]) -> str:
        try:
            runtime, who = session.open(ctx, "reader")
            found = await runtime.memories.get_one(who.namespace_for(None), key)
        except NotFound as exc:
            raise ResourceNotFoundError(exc.message) from exc
        except MnemographError as exc:
            raise ResourceError(f"{exc.error_type}: {exc.message}") from exc
        return json.dumps(found["memory"], ensure_ascii=False)


async def recent(session: ToolSession, ctx: Context[Any]) -> list[Resource]:
    """The caller's `RECENT` most recent memories, each as its `memory://` resource (the key
    percent-encoded, as RFC 6570 expands it; a read takes it encoded or not)."""
    try:
        runtime, who = session.open(ctx, "reader")
        memories = await runtime.memories.recent(who.namespace_for(None), RECENT)
    except MnemographError as exc:
        raise MCPError(INVALID_REQUEST, f"{exc.error_type}: {exc.message}") from exc
    return [
        Resource(
            uri=_URI.expand({"key": memory["key"]}),
            name=memory["key"],
            title=memory["title"] or None,
            description=memory["summary"] or None,
            mime_type="application/json",
        )
        for memory in memories
    ]
