"""The service end to end: health, readiness, metrics, and memories across HTTP and MCP."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

from mcp import Client, StdioServerParameters

from service.config import Settings
from service.version import VERSION
from tests.e2e.conftest import REPO, HttpApi, McpApi, service_env


async def test_readyz_reports_neo4j_qdrant_and_embedder_ok(http_api: HttpApi) -> None:
    response = await http_api.client.get("/readyz")
    body = response.json()
    assert response.status_code == 200
    assert body["success"] is True
    assert {name: check["status"] for name, check in body["checks"].items()} == {
        "neo4j": "ok",
        "qdrant": "ok",
        "embedder": "ok",
    }
    assert body["checks"]["qdrant"]["engine"] == "qdrant-edge"
    assert body["checks"]["embedder"]["model"] == "all-MiniLM-L6-v2"
    assert set(body["contextBacklog"]) == {"pending", "approximate", "oldestWaitS"}


async def test_healthz_and_metrics_answer(http_api: HttpApi) -> None:
    health = (await http_api.client.get("/healthz")).json()
    served = uuid.UUID(health.pop("data_folder_id"))  # the folder's own id: test_daemon.py
    assert (health, served.version) == ({"success": True, "status": "ok", "version": VERSION}, 4)
    await http_api.client.get("/readyz")
    metrics = (await http_api.client.get("/metrics")).text
    assert 'mnemograph_backend_ready{backend="neo4j"} 1.0' in metrics
    assert "mnemograph_http_requests_total" in metrics
    assert 'mnemograph_context_backlog{state="approximate"}' in metrics
    assert "mnemograph_context_oldest_wait_seconds" in metrics
    for outcome in ("approximated", "averaged", "embedded", "kept"):
        assert f'mnemograph_context_refreshes{{outcome="{outcome}"}}' in metrics
    for outcome in ("current", "stale", "loaded", "discarded", "advanced"):
        assert f'mnemograph_link_graph{{outcome="{outcome}"}}' in metrics
    assert "mnemograph_link_graph_items" in metrics
    for outcome in ("held", "read"):
        assert f'mnemograph_view_cache{{outcome="{outcome}"}}' in metrics
    assert "mnemograph_view_cache_bytes" in metrics


async def test_memory_saved_over_http_is_returned_by_mcp(
    http_api: HttpApi, mcp_api: McpApi, namespace: str
) -> None:
    saved = await http_api.call(
        "memory_save", namespace=namespace, key="from-http", content="saved over HTTP", score=70
    )
    assert http_api.last_status == 201
    got = await mcp_api.call("memory_get", namespace=namespace, keys=["from-http"])
    assert got["memories"][0]["id"] == saved["memory"]["id"]
    assert got["memories"][0]["content"] == "saved over HTTP"


async def test_memory_saved_over_mcp_is_returned_by_http(
    http_api: HttpApi, mcp_api: McpApi, namespace: str
) -> None:
    saved = await mcp_api.call("memory_save", namespace=namespace, content="saved over MCP")
    response = await http_api.client.get(
        f"/v1/memories/{saved['memory']['key']}", params={"namespace": namespace}
    )
    assert response.status_code == 200
    assert response.json()["memory"]["id"] == saved["memory"]["id"]


async def test_second_save_of_a_key_answers_200_and_created_false(
    http_api: HttpApi, namespace: str
) -> None:
    await http_api.call("memory_save", namespace=namespace, key="k", content="one")
    again = await http_api.call("memory_save", namespace=namespace, key="k", content="two")
    assert (http_api.last_status, again["created"]) == (200, False)


async def test_unknown_memory_over_http_is_404_with_the_envelope(
    http_api: HttpApi, namespace: str
) -> None:
    response = await http_api.client.get("/v1/memories/nope", params={"namespace": namespace})
    assert response.status_code == 404
    assert response.json() == {
        "success": False,
        "error_type": "not_found",
        "message": "Memory not found: nope",
        "error": "Memory not found: nope",
    }


async def test_invalid_parameters_give_the_envelope_on_both_transports(
    http_api: HttpApi, mcp_api: McpApi, namespace: str
) -> None:
    expected = {
        "success": False,
        "error_type": "invalid_parameter",
        "message": "Invalid score value: 101. Input should be less than or equal to 100",
        "error": "Invalid score value: 101. Input should be less than or equal to 100",
    }
    over_http = await http_api.call("memory_save", namespace=namespace, content="c", score=101)
    assert (http_api.last_status, over_http) == (400, expected)
    assert (
        await mcp_api.call("memory_save", namespace=namespace, content="c", score=101) == expected
    )


async def test_oversized_content_is_413_over_http(http_api: HttpApi, namespace: str) -> None:
    body = await http_api.call("memory_save", namespace=namespace, content="x" * 102_401)
    assert http_api.last_status == 413
    assert body["error_type"] == "payload_too_large"


async def test_openapi_lists_the_memory_endpoints(http_api: HttpApi) -> None:
    paths = (await http_api.client.get("/openapi.json")).json()["paths"]
    assert {
        "/v1/memories",
        "/v1/memories/{ref}",
        "/v1/memories/get",
        "/v1/memories/{ref}/links/{target}",
        "/healthz",
        "/readyz",
    } <= set(paths)


async def test_mcp_over_stdio_saves_and_gets(settings: Settings, tmp_path: Path) -> None:
    env = service_env(settings, tmp_path)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "service.cli", "mcp", "--embedded"],
        env=env,
        cwd=str(REPO),
    )
    async with Client(params) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        assert {"memory_save", "memory_get", "memory_link", "memory_delete"} <= tools
        saved = await client.call_tool("memory_save", {"content": "over stdio", "key": "stdio-1"})
        assert saved.structured_content is not None
        got = await client.call_tool("memory_get", {"key": "stdio-1"})
        assert got.structured_content is not None
        assert got.structured_content["memories"][0]["content"] == "over stdio"


async def test_tool_prefix_renames_every_tool(settings: Settings, tmp_path: Path) -> None:
    env = service_env(settings, tmp_path, None, MNEMO_MCP__TOOL_PREFIX="rulebook_")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "service.cli", "mcp", "--embedded"],
        env=env,
        cwd=str(REPO),
    )
    async with Client(params) as client:
        tools = sorted(tool.name for tool in (await client.list_tools()).tools)
        assert tools == [
            "rulebook_memory_cleanup",
            "rulebook_memory_delete",
            "rulebook_memory_fulltext_search",
            "rulebook_memory_get",
            "rulebook_memory_link",
            "rulebook_memory_save",
            "rulebook_memory_search",
            "rulebook_memory_stats",
            "rulebook_memory_timeline",
            "rulebook_retrieve_context",
        ]
        failed = await client.call_tool("rulebook_memory_get", {"key": "x", "sortLinks": "yes"})
        assert failed.is_error is True
        assert failed.structured_content == {
            "success": False,
            "error_type": "invalid_parameter",
            "message": "Invalid sortLinks value: 'yes'. Must be true or false",
            "error": "Invalid sortLinks value: 'yes'. Must be true or false",
            "memories": [],
            "missing": [],
        }


def test_non_loopback_listen_without_keys_is_refused(settings: Settings, tmp_path: Path) -> None:
    env = service_env(settings, tmp_path, None, MNEMO_HTTP__HOST="0.0.0.0")
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "serve"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "Refusing to listen on 0.0.0.0 without API keys" in done.stderr


async def test_request_bodies_over_the_limit_are_refused_before_reading(
    http_api: HttpApi, namespace: str
) -> None:
    response = await http_api.client.post(
        "/v1/memories", params={"namespace": namespace}, json={"content": "x" * 3_000_000}
    )
    assert response.status_code == 413
    assert response.json()["message"].startswith("Request body is ")


async def test_patch_updates_only_the_given_fields(http_api: HttpApi, namespace: str) -> None:
    saved = await http_api.call(
        "memory_save",
        namespace=namespace,
        key="p",
        title="T",
        content="old text",
        score=10,
        tags=["a"],
    )
    params = {"namespace": namespace}
    response = await http_api.client.patch("/v1/memories/p", params=params, json={"score": 90})
    memory = response.json()["memory"]
    assert response.status_code == 200
    assert (memory["id"], memory["score"], memory["content"], memory["tags"], memory["title"]) == (
        saved["memory"]["id"],
        90.0,
        "old text",
        ["a"],
        "T",
    )
    changed = await http_api.client.patch(
        "/v1/memories/p", params=params, json={"content": "new text"}
    )
    assert changed.json()["memory"]["summary"] == "new text"
    missing = await http_api.client.patch("/v1/memories/nope", params=params, json={"score": 1})
    assert missing.status_code == 404
