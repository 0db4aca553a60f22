"""Seed 003 (rulebook memory tools, lifecycle part): save, get, timeline, stats and cleanup,
scenario by scenario over HTTP and MCP, and over stdio MCP with the `rulebook_` prefix."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from service.config import Settings
from tests.e2e.conftest import REPO, Api, service_env

STATS_FIELDS = {
    "success", "dbSizeBytes", "memoryCount", "linkCount", "sessionCount", "oldestMemory",
    "newestMemory", "maxSizeBytes", "usagePercent", "indexHealth", "indexDetails",
}  # fmt: skip


async def test_seed_003_save_get_timeline_stats_and_cleanup(api: Api, namespace: str) -> None:
    saved = await api.call(
        "memory_save",
        namespace=namespace,
        type="decision",
        title="Use sql.js",
        content="Decided to use sql.js for zero native deps",
        tags=["architecture"],
    )
    assert saved["success"] is True and saved["memory"]["id"]
    for i in range(3):
        await api.call("memory_save", namespace=namespace, key=f"n{i}", content=f"note {i}")
    got = await api.call("memory_get", namespace=namespace, ids=[saved["memory"]["id"]])
    assert got["memories"][0]["content"] == "Decided to use sql.js for zero native deps"
    assert got["memories"][0]["access_count"] == 1
    timeline = await api.call("memory_timeline", namespace=namespace, memoryId="n1", window=5)
    assert [(e["position"], e["distanceFromAnchor"]) for e in timeline["timeline"]] == [
        ("before", 2),
        ("before", 1),
        ("anchor", 0),
        ("after", 1),
    ]
    stats = await api.call("memory_stats", namespace=namespace)
    assert set(stats) == STATS_FIELDS
    assert (stats["memoryCount"], stats["linkCount"], stats["indexHealth"]) == (4, 0, "good")
    cleanup = await api.call("memory_cleanup", namespace=namespace, force=True)
    assert cleanup == {"success": True, "evictedCount": 0, "freedBytes": 0, "evictedIds": []}
    missing = await api.call("memory_timeline", namespace=namespace, memoryId="nope")
    assert (missing["success"], missing["error_type"]) == (False, "not_found")


async def test_seed_003_tools_over_stdio_with_the_rulebook_prefix(
    settings: Settings, tmp_path: Path
) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "service.cli", "mcp", "--embedded"],
        env=service_env(settings, tmp_path, None, MNEMO_MCP__TOOL_PREFIX="rulebook_"),
        cwd=str(REPO),
    )

    async with Client(params) as client:

        async def call(tool: str, **arguments: Any) -> dict[str, Any]:
            result = await client.call_tool(f"rulebook_{tool}", arguments)
            assert result.structured_content is not None
            return result.structured_content

        saved = await call("memory_save", type="decision", title="Use sql.js", content="sql.js")
        anchor = saved["memory"]["id"]
        timeline = await call("memory_timeline", memoryId=anchor, window=5)
        assert timeline["anchor"] == anchor
        assert set(await call("memory_stats")) == STATS_FIELDS
        forced = await call("memory_cleanup", force=True)
        assert set(forced) == {"success", "evictedCount", "freedBytes", "evictedIds"}
        assert (await call("memory_get", ids=[anchor]))["memories"][0]["id"] == anchor


async def test_supersede_and_near_duplicates_over_both_transports(api: Api, namespace: str) -> None:
    old = await api.call("memory_save", namespace=namespace, key="port", content="API on port 9000")
    near = await api.call(
        "memory_save", namespace=namespace, key="port-copy", content="API on port 9000"
    )
    assert near["similar"] == [{"id": old["memory"]["id"], "key": "port", "score": 1.0}]
    new = await api.call(
        "memory_save",
        namespace=namespace,
        key="port-2",
        content="The API moved to port 8080",
        supersedes=["port", "port-copy"],
    )
    assert new["memory"]["supersedes"] == sorted([old["memory"]["id"], near["memory"]["id"]])
    searched = await api.call("memory_search", namespace=namespace, query="API port")
    assert [r["key"] for r in searched["results"]] == ["port-2"]
    everything = await api.call(
        "memory_search", namespace=namespace, query="API port", include_superseded=True
    )
    assert sorted(r["key"] for r in everything["results"]) == ["port", "port-2", "port-copy"]
    keywords = await api.call("memory_fulltext_search", namespace=namespace, keywords=["port"])
    assert [r["key"] for r in keywords["results"]] == ["port-2"]
    context = await api.call(
        "retrieve_context", namespace=namespace, query="which port", include_superseded=False
    )
    assert [r["key"] for r in context["results"]] == ["port-2"]
    got = await api.call("memory_get", namespace=namespace, keys=["port"])
    assert got["memories"][0]["superseded_by"] == new["memory"]["id"]
    refused = await api.call(
        "memory_save", namespace=namespace, key="x", content="y", supersedes=["nope"]
    )
    assert (refused["success"], refused["error_type"], refused["message"]) == (
        False,
        "not_found",
        "Superseded memory(ies) not found: nope",
    )
