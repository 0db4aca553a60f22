"""API keys on the running stack, over HTTP and MCP: a missing or unknown key is a 401, a reader
cannot write, and a key of another namespace neither reads its memories nor chooses it."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from tests.e2e.conftest import McpApi
from tests.stack.stack import Stack

MISSING = "Missing API key: send 'Authorization: Bearer <key>' or 'X-API-Key'"
INITIALIZE: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}


def envelope(error_type: str, message: str) -> dict[str, Any]:
    return {"success": False, "error_type": error_type, "message": message, "error": message}


async def test_a_missing_or_unknown_key_is_refused_with_401(stack: Stack) -> None:
    stream = {"accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(base_url=stack.url, timeout=30) as client:
        bare = await client.get("/v1/memories/anything")
        wrong = await client.get(
            "/v1/memories/anything", headers={"Authorization": "Bearer not-a-key"}
        )
        mcp = await client.post("/mcp", json=INITIALIZE, headers=stream)
        mcp_wrong = await client.post("/mcp", json=INITIALIZE, headers={**stream, "X-API-Key": "x"})
    assert (bare.status_code, bare.json()) == (401, envelope("unauthorized", MISSING))
    assert (wrong.status_code, wrong.json()) == (401, envelope("unauthorized", "Invalid API key"))
    assert (mcp.status_code, mcp.json()["message"]) == (401, MISSING)
    assert (mcp_wrong.status_code, mcp_wrong.json()["message"]) == (401, "Invalid API key")


async def test_keys_stay_in_their_namespace_over_http(stack: Stack) -> None:
    content = f"alpha's plan {uuid.uuid4().hex}"
    async with httpx.AsyncClient(base_url=stack.url, timeout=30) as client:
        saved = await client.post(
            "/v1/memories", json={"content": content}, headers=stack.headers("alpha", "writer")
        )
        memory = saved.json()["memory"]
        path = f"/v1/memories/{memory['id']}"
        read = await client.get(path, headers=stack.headers("alpha", "reader"))
        by_reader = await client.post(
            "/v1/memories", json={"content": "x"}, headers=stack.headers("alpha", "reader")
        )
        by_beta = await client.get(path, headers=stack.headers("beta", "writer"))
        chosen = await client.get(
            path, params={"namespace": "alpha"}, headers=stack.headers("beta", "writer")
        )
    assert (saved.status_code, memory["namespace"], memory["content"]) == (201, "alpha", content)
    assert (read.status_code, read.json()["memory"]["id"]) == (200, memory["id"])
    assert (by_reader.status_code, by_reader.json()) == (
        403,
        envelope("forbidden", "This operation needs the 'writer' role; the key has 'reader'"),
    )
    assert (by_beta.status_code, by_beta.json()) == (
        404,
        envelope("not_found", f"Memory not found: {memory['id']}"),
    )
    assert (chosen.status_code, chosen.json()) == (
        403,
        envelope("forbidden", "Only admin keys may choose the namespace"),
    )


async def test_keys_stay_in_their_namespace_over_mcp(stack: Stack) -> None:
    alpha = McpApi(f"{stack.url}/mcp", stack.headers("alpha", "writer"))
    beta = McpApi(f"{stack.url}/mcp", stack.headers("beta", "writer"))
    content = f"alpha's secret over MCP {uuid.uuid4().hex}"
    memory = (await alpha.call("memory_save", content=content))["memory"]
    assert (memory["namespace"], memory["content"]) == ("alpha", content)
    own = await alpha.call("memory_get", ids=[memory["id"]])
    assert [found["content"] for found in own["memories"]] == [content]
    foreign = await beta.call("memory_get", ids=[memory["id"]])
    assert (foreign["memories"], foreign["missing"]) == ([], [memory["id"]])
    chosen = await beta.call("memory_get", ids=[memory["id"]], namespace="alpha")
    assert chosen == {
        **envelope("forbidden", "Only admin keys may choose the namespace"),
        "memories": [],
        "missing": [],
    }
