"""Seeds 002 (mcp-search-tools), 003 (rulebook memory tools, search part) and 004 (sort_by),
scenario by scenario over HTTP and MCP against the running service."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from service.api.http.app import create_app
from service.config import Settings, load_settings
from service.stores.graph_store import GraphStore
from tests.e2e.conftest import REPO, Api, HttpApi, McpApi, service_env, wait_context_drained

DOCS: list[dict[str, Any]] = [
    {
        "key": "auth-bug",
        "type": "bugfix",
        "score": 90,
        "title": "Authentication bug in login",
        "content": "The authentication bug logged users out when the refresh token expired.",
    },
    {
        "key": "auth-design",
        "type": "design",
        "score": 40,
        "title": "Authentication design",
        "content": "OAuth2 with JWT access tokens; authentication happens at the gateway.",
    },
    {
        "key": "workspace-001",
        "type": "note",
        "score": 10,
        "title": "Workspace 001 update",
        "content": "Workspace 001 moved to the new cluster.",
    },
]


async def seed(api: Api, namespace: str) -> None:
    for doc in DOCS:
        saved = await api.call("memory_save", namespace=namespace, **doc)
        assert saved["success"] is True, saved
    await api.call(
        "memory_save",
        namespace=namespace,
        key="hub-a",
        content="linked memory",
        score=30,
        links=[{"key": "auth-design", "weight": 0.2}, {"key": "auth-bug", "weight": 0.9}],
    )
    await api.call(
        "memory_link", namespace=namespace, **{"from": "auth-bug", "to": "hub-a"}, weight=0.5
    )
    await api.call(
        "memory_link", namespace=namespace, **{"from": "auth-bug", "to": "auth-design"}, weight=0.9
    )


def keys(payload: dict[str, Any]) -> list[str]:
    return [r["key"] for r in payload["results"]]


# -- seed 002 / 003: memory_search -------------------------------------------------------------


async def test_memory_search_returns_key_summary_and_relevance_best_first(
    api: Api, namespace: str
) -> None:
    await seed(api, namespace)
    result = await api.call(
        "memory_search", namespace=namespace, query="authentication bug", limit=10, mode="hybrid"
    )
    assert result["success"] is True
    assert keys(result)[0] == "auth-bug"
    scores = [r["score"] for r in result["results"]]
    assert scores == sorted(scores, reverse=True)
    first = result["results"][0]
    assert first["summary"].startswith("The authentication bug")
    assert {"id", "title", "type", "score", "matchType", "createdAt"} <= set(first)
    assert result["total"] >= 2


async def test_memory_search_pages_with_limit_and_offset(api: Api, namespace: str) -> None:
    await seed(api, namespace)
    whole = await api.call(
        "memory_search", namespace=namespace, query="authentication", mode="bm25"
    )
    page = await api.call(
        "memory_search", namespace=namespace, query="authentication", mode="bm25", limit=1, offset=1
    )
    assert keys(page) == keys(whole)[1:2]
    assert (page["total"], page["limit"], page["offset"]) == (whole["total"], 1, 1)
    assert page["total_capped"] is whole["total_capped"] is False


async def test_memory_search_filters_by_type(api: Api, namespace: str) -> None:
    await seed(api, namespace)
    result = await api.call(
        "memory_search", namespace=namespace, query="authentication", type="design"
    )
    assert keys(result) == ["auth-design"]


async def test_search_results_carry_links_sorted_unless_sort_links_is_false(
    api: Api, namespace: str
) -> None:
    await seed(api, namespace)
    sorted_result = await api.call(
        "memory_search", namespace=namespace, query="authentication bug", mode="bm25"
    )
    bug = next(r for r in sorted_result["results"] if r["key"] == "auth-bug")
    assert [(x["key"], x["combined_score"]) for x in bug["links"]] == [
        ("auth-design", 36.0),
        ("hub-a", 15.0),
    ]
    unsorted = await api.call(
        "memory_search",
        namespace=namespace,
        query="authentication bug",
        mode="bm25",
        sortLinks=False,
    )
    bug = next(r for r in unsorted["results"] if r["key"] == "auth-bug")
    assert [x["key"] for x in bug["links"]] == ["hub-a", "auth-design"]


async def test_fulltext_search_highlights_and_sorts_links(api: Api, namespace: str) -> None:
    await seed(api, namespace)
    result = await api.call(
        "memory_fulltext_search",
        namespace=namespace,
        keywords=["gateway", "JWT"],
        operator="AND",
        sortLinks=True,
    )
    assert keys(result) == ["auth-design"]
    assert result["results"][0]["excerpt"] == (
        "OAuth2 with <mark>JWT</mark> access tokens; authentication happens at the "
        "<mark>gateway</mark>."
    )
    hub = await api.call("memory_fulltext_search", namespace=namespace, keywords="linked")
    assert [x["key"] for x in hub["results"][0]["links"]] == ["auth-bug", "auth-design"]


async def test_fulltext_or_is_the_default_operator(api: Api, namespace: str) -> None:
    await seed(api, namespace)
    result = await api.call(
        "memory_fulltext_search", namespace=namespace, keywords="cluster, gateway"
    )
    assert sorted(keys(result)) == ["auth-design", "workspace-001"]
    assert (result["total"], result["total_capped"]) == (2, False)


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        (
            "memory_search",
            {"query": "x", "limit": 0},
            "Invalid limit value: 0. Input should be greater than or equal to 1",
        ),
        (
            "memory_search",
            {"query": "x", "mode": "fuzzy"},
            "Invalid mode value: 'fuzzy'. Input should be 'hybrid', 'bm25' or 'vector'",
        ),
        (
            "memory_search",
            {"query": "x", "sortLinks": "yes"},
            "Invalid sortLinks value: 'yes'. Must be true or false",
        ),
        (
            "memory_fulltext_search",
            {"keywords": "x", "operator": "XOR"},
            "Invalid operator value: 'XOR'. Input should be 'AND' or 'OR'",
        ),
        (
            "memory_fulltext_search",
            {"keywords": " , "},
            "Invalid keywords value: at least one non-blank keyword is needed",
        ),
    ],
)
async def test_invalid_search_parameters_give_descriptive_envelopes(
    api: Api, namespace: str, tool: str, arguments: dict[str, Any], message: str
) -> None:
    result = await api.call(tool, namespace=namespace, **arguments)
    assert result == {
        "success": False,
        "error_type": "invalid_parameter",
        "message": message,
        "error": message,
        "results": [],
    }
    if isinstance(api, HttpApi):
        assert api.last_status == 400


async def test_http_and_mcp_return_identical_search_results(
    http_api: HttpApi, mcp_api: McpApi, graph: GraphStore, namespace: str
) -> None:
    await seed(http_api, namespace)
    await wait_context_drained(graph, namespace)
    for tool, arguments in (
        ("memory_search", {"query": "authentication bug"}),
        ("memory_fulltext_search", {"keywords": ["authentication"]}),
        ("retrieve_context", {"query": "authentication", "sort_by": "relevance"}),
    ):
        over_http = await http_api.call(tool, namespace=namespace, **arguments)
        over_mcp = await mcp_api.call(tool, namespace=namespace, **arguments)
        assert over_http == over_mcp, tool


async def test_a_saved_memory_is_found_by_search_right_away(api: Api, namespace: str) -> None:
    await api.call(
        "memory_save",
        namespace=namespace,
        type="decision",
        title="Use sql.js",
        content="Decided to use sql.js for zero native deps",
        tags=["architecture"],
    )
    result = await api.call("memory_search", namespace=namespace, query="sql.js native deps")
    assert result["results"][0]["title"] == "Use sql.js"


# -- seed 004: retrieve_context sort_by --------------------------------------------------------


async def test_retrieve_context_defaults_to_timestamp_newest_first(
    api: Api, namespace: str
) -> None:
    await seed(api, namespace)
    result = await api.call("retrieve_context", namespace=namespace, query="authentication")
    assert result["sort_by"] == "timestamp"
    created = [r["created_at"] for r in result["results"]]
    assert created == sorted(created, reverse=True)
    assert keys(result)[0] == "hub-a"


async def test_retrieve_context_relevance_orders_by_score(api: Api, namespace: str) -> None:
    await seed(api, namespace)
    result = await api.call(
        "retrieve_context", namespace=namespace, query="auth-bug", sort_by="relevance"
    )
    scores = [r["score"] for r in result["results"]]
    assert scores == sorted(scores, reverse=True)
    assert (keys(result)[0], result["results"][0]["source"]) == ("auth-bug", "kv")


async def test_retrieve_context_graph_results_have_hop_scores(api: Api, namespace: str) -> None:
    await seed(api, namespace)
    result = await api.call(
        "retrieve_context",
        namespace=namespace,
        query="workspace-001",
        search_mode="graph",
        anchors=["hub-a"],
        max_hops=2,
        sort_by="relevance",
    )
    hops = {r["key"]: (r["hop_distance"], round(r["score"], 3)) for r in result["results"]}
    assert hops == {"auth-bug": (1, 0.667), "auth-design": (1, 0.667)}


async def test_graph_mode_returns_what_the_exact_key_links_to_even_when_it_was_a_seed(
    api: Api, namespace: str
) -> None:
    # "workspace-002" shares the query's words, so it seeds too; the exact key seeds first.
    await seed(api, namespace)
    await api.call(
        "memory_save",
        namespace=namespace,
        key="workspace-002",
        content="Workspace 002 keeps the staging data.",
        links=[{"key": "workspace-001", "weight": 0.8}],
    )
    result = await api.call(
        "retrieve_context",
        namespace=namespace,
        query="workspace-001",
        search_mode="graph",
        sort_by="relevance",
    )
    found = [
        (r["key"], r["hop_distance"], r["path"], round(r["score"], 3)) for r in result["results"]
    ]
    assert found == [("workspace-002", 1, ["workspace-001", "workspace-002"], 0.667)]


async def test_hybrid_shows_why_a_seed_linked_to_the_top_hit_is_listed(
    api: Api, namespace: str
) -> None:
    # auth-bug (the exact key) links with weight 0.9 to auth-design, itself a hit of the query.
    await seed(api, namespace)
    result = await api.call(
        "retrieve_context", namespace=namespace, query="auth-bug", sort_by="relevance", max_hops=1
    )
    design = next(r for r in result["results"] if r["key"] == "auth-design")
    assert keys(result)[0] == "auth-bug"
    assert (design["hop_distance"], design["path"]) == (1, ["auth-bug", "auth-design"])
    assert design["scores"]["graph"] == pytest.approx(1 / 1.5)


@pytest.mark.parametrize("value", ["invalid", "date", "RELEVANCE"])
async def test_invalid_sort_by_returns_the_exact_error_and_empty_results(
    api: Api, namespace: str, value: str
) -> None:
    result = await api.call("retrieve_context", namespace=namespace, query="x", sort_by=value)
    message = f"Invalid sort_by value: '{value}'. Must be 'timestamp' or 'relevance'"
    assert result == {
        "success": False,
        "results": [],
        "message": message,
        "error_type": "invalid_parameter",
        "error": message,
    }


async def test_retrieve_context_combines_sort_by_with_type_and_date_filters(
    api: Api, namespace: str
) -> None:
    await seed(api, namespace)
    result = await api.call(
        "retrieve_context",
        namespace=namespace,
        query="authentication",
        sort_by="timestamp",
        type="design",
        filters={"date_from": "2020-01-01"},
        limit=20,
    )
    assert keys(result) == ["auth-design"]


# -- registration and the memory switch --------------------------------------------------------


def stdio(settings: Settings, tmp_path: Path, **env: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "service.cli", "mcp", "--embedded"],
        env=service_env(settings, tmp_path, None, **env),
        cwd=str(REPO),
    )


async def test_search_tools_are_registered_with_sort_links_defaulting_to_true(
    settings: Settings, tmp_path: Path
) -> None:
    async with Client(stdio(settings, tmp_path)) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    for name in ("memory_search", "memory_fulltext_search", "retrieve_context", "memory_get"):
        schema = tools[name].input_schema["properties"]["sortLinks"]
        assert schema["default"] is True
        assert "description" in schema
    assert tools["memory_search"].input_schema["properties"]["query"]["examples"] == ["auth bug"]


async def test_disabled_search_registers_no_search_tools_and_no_endpoints(
    settings: Settings, tmp_path: Path
) -> None:
    async with Client(stdio(settings, tmp_path, MNEMO_SEARCH__ENABLED="false")) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
    assert "memory_search" not in names
    assert "memory_fulltext_search" not in names
    assert "retrieve_context" in names
    app = create_app(load_settings(search={"enabled": False}))
    paths = set(app.openapi()["paths"])  # included routers are nested in app.routes
    assert "/v1/search" not in paths
    assert "/v1/fulltext" not in paths
    assert "/v1/retrieve" in paths


async def test_disabled_memory_answers_every_tool_with_the_rulebook_message(
    settings: Settings, tmp_path: Path
) -> None:
    params = stdio(
        settings, tmp_path, MNEMO_MEMORY__ENABLED="false", MNEMO_MCP__TOOL_PREFIX="rulebook_"
    )
    message = (
        "Memory system is not enabled. Set memory.enabled=true in mnemograph.toml or "
        "MNEMO_MEMORY__ENABLED=true"
    )
    async with Client(params) as client:
        for tool, arguments in (
            ("rulebook_memory_search", {"query": "authentication bug", "limit": 10}),
            ("rulebook_memory_save", {"content": "x"}),
            ("rulebook_memory_get", {"ids": ["id1"]}),
        ):
            result = await client.call_tool(tool, arguments)
            assert result.is_error is True
            assert result.structured_content is not None
            assert result.structured_content["success"] is False
            assert result.structured_content["error"] == message
            assert result.structured_content["error_type"] == "memory_disabled"
