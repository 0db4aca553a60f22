"""The MCP prompt `recall`: what the memory knows about a topic (retrieve_context's best
matches, by relevance), as a message to start a conversation from."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from pydantic import Field

from service.api.mcp.session import ToolSession
from service.core.search_inputs import RetrieveInput

RECALLED = 10


def register(server: MCPServer[Any], session: ToolSession) -> None:
    @server.prompt(
        name="recall",
        description="Recall what we know about a topic: the memories retrieve_context finds "
        "for it, most relevant first, each with its key for memory_get.",
    )
    async def recall(
        topic: Annotated[str, Field(min_length=1, description="What to recall.")],
        ctx: Context[Any],
    ) -> str:
        runtime, who = session.open(ctx, "reader")
        params = RetrieveInput(query=topic, sort_by="relevance", limit=RECALLED)
        found = await runtime.retrieval.retrieve(who.namespace_for(None), params)
        lines = [
            f"- {item['title'] or item['key']} (`{item['key']}`): {item['summary']}"
            for item in found["results"]
        ]
        known = "\n".join(lines) if lines else "Nothing is saved about it yet."
        return (
            f"What we know about {topic}, from the memory:\n\n{known}\n\n"
            "Read a memory in full with memory_get (its key) or as the resource memory://<key>."
        )
