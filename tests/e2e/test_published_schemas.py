"""Real answers against the published schemas: every tool's success payload validates against
its `outputSchema`, every route's against its OpenAPI response, on a real server."""
# jsonschema (a dependency of the MCP SDK) ships partial types: its validators read `Unknown`.
# pyright: reportUnknownMemberType=false

from __future__ import annotations

from typing import Any

import httpx
from jsonschema import Draft202012Validator
from mcp import Client

from service.api.tools import TOOLS
from tests.e2e.conftest import HttpApi

# Every tool, in an order where each finds what it needs; `sortLinks` as the seeds send it.
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("memory_save", {"key": "a", "content": "Neo4j stores the graph", "tags": ["arch"]}),
    (
        "memory_save",
        {"key": "b", "content": "Qdrant holds the vectors", "links": [{"key": "a"}], "score": 70},
    ),
    ("memory_link", {"from": "a", "to": "b", "weight": 0.8, "term": "pairs with"}),
    ("memory_get", {"keys": ["a", "ghost"], "sortLinks": "false"}),
    ("memory_search", {"query": "graph", "sortLinks": True}),
    ("memory_fulltext_search", {"keywords": ["vectors"]}),
    ("retrieve_context", {"query": "where are vectors", "sort_by": "relevance"}),
    ("memory_timeline", {"memoryId": "a", "window": 2}),
    ("memory_stats", {}),
    ("memory_cleanup", {"dry_run": True}),
    ("memory_link", {"from": "a", "to": "b", "remove": True}),
    ("memory_delete", {"keys": ["b"]}),
]


def problems(
    schema: dict[str, Any], instance: Any, root: dict[str, Any] | None = None
) -> list[str]:
    """What JSON Schema 2020-12 finds wrong with `instance`; `root` holds the OpenAPI
    components the schema's refs name."""
    full = {**schema, **({"components": root["components"]} if root else {})}
    return [error.message for error in Draft202012Validator(full).iter_errors(instance)]


async def test_every_tool_answers_what_its_output_schema_describes(
    server_url: str, namespace: str
) -> None:
    async with Client(f"{server_url}/mcp") as client:
        schemas = {tool.name: tool.output_schema for tool in (await client.list_tools()).tools}
        for tool, arguments in CALLS:
            result = await client.call_tool(tool, {**arguments, "namespace": namespace})
            payload = result.structured_content
            assert payload is not None and payload["success"] is True, (tool, payload)
            schema = schemas[tool]
            assert schema is not None, tool
            assert problems(schema, payload) == [], tool
    assert sorted(schemas) == sorted({tool for tool, _ in CALLS})


async def test_every_route_answers_what_its_openapi_response_describes(
    http_api: HttpApi, namespace: str
) -> None:
    spec = (await http_api.client.get("/openapi.json")).json()
    checked: set[tuple[str, str]] = set()

    def check(route: tuple[str, str], response: httpx.Response | tuple[int, Any]) -> None:
        status, body = (
            (response.status_code, response.json())
            if isinstance(response, httpx.Response)
            else response
        )
        assert status in (200, 201), (route, body)
        documented = spec["paths"][route[1]][route[0]]["responses"][str(status)]
        schema = documented["content"]["application/json"]["schema"]
        assert problems(schema, body, spec) == [], route
        checked.add(route)

    for tool, arguments in CALLS:
        body = await http_api.call(tool, **arguments, namespace=namespace)
        check(route_of(tool, arguments), (http_api.last_status, body))
    client, params = http_api.client, {"namespace": namespace}
    check(("get", "/v1/memories/{ref}"), await client.get("/v1/memories/a", params=params))
    patched = await client.patch("/v1/memories/a", json={"title": "Graph"}, params=params)
    check(("patch", "/v1/memories/{ref}"), patched)
    batch = {"memories": [{"key": "c", "content": "batch"}, {"key": "bad key", "content": "x"}]}
    saved = await client.post("/v1/memories/batch", json=batch, params=params)
    check(("post", "/v1/memories/batch"), saved)
    exported = await client.get("/v1/export", params=params)
    restored = await client.post("/v1/import", content=exported.content, params=params)
    check(("post", "/v1/import"), restored)
    check(("get", "/healthz"), await client.get("/healthz"))
    check(("get", "/readyz"), await client.get("/readyz"))
    assert json_routes(spec) - checked == set()


def json_routes(spec: dict[str, Any]) -> set[tuple[str, str]]:
    """The (method, path) of every route whose success is JSON."""
    return {
        (method, path)
        for path, operations in spec["paths"].items()
        for method, operation in operations.items()
        if any(
            "application/json" in operation["responses"].get(status, {}).get("content", {})
            for status in ("200", "201")
        )
    }


def route_of(tool: str, arguments: dict[str, Any]) -> tuple[str, str]:
    """The OpenAPI (method, path) of a tool's HTTP twin as `HttpApi` calls it."""
    spec = TOOLS[tool]
    method = "delete" if arguments.get("remove") else spec.method.lower()
    return method, spec.path
