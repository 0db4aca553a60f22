"""Isolation over a real server with keys: every tool of the one tool table, over HTTP and MCP,
× two namespaces × three roles × (own namespace, the other one by `namespace`, the other one's
memories by id), each with its exact outcome; every HTTP-only route too. No answer ever carries
an id or the name of a namespace the caller did not address, and no LINK crosses namespaces,
even one an admin asked for."""

from __future__ import annotations

import itertools
import json
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
import pytest_asyncio

from service.api.tools import EXPORT_PATH, IMPORT_PATH, TOOLS, ToolSpec
from service.stores.graph_store import GraphStore
from tests.e2e.conftest import ROLES, HttpApi, McpApi, Tenants

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
RANK = {"reader": 0, "writer": 1, "admin": 2}


@dataclass
class World:
    """The memories of each namespace as the test saved them, and what the calls saw."""

    tenants: Tenants
    ids: dict[str, dict[str, str]] = field(default_factory=dict[str, dict[str, str]])
    ever: dict[str, set[str]] = field(default_factory=dict[str, set[str]])
    calls: int = 0
    leaks: list[tuple[str, str]] = field(default_factory=list[tuple[str, str]])

    def other(self, namespace: str) -> str:
        a, b = self.tenants.namespaces
        return b if namespace == a else a

    def owned(self, namespace: str, payload: dict[str, Any]) -> None:
        """Count the call; note a foreign read: an id or namespace name not of `namespace`."""
        self.calls += 1
        self.ever[namespace] |= created_ids(payload)
        text = json.dumps(payload)
        if (
            set(UUID.findall(text)) & self.ever[self.other(namespace)]
            or self.other(namespace) in text
        ):
            self.leaks.append((namespace, text[:2000]))


def created_ids(payload: dict[str, Any]) -> set[str]:
    """Ids of memories a save or batch answer created."""
    ids: set[str] = set()
    if isinstance(payload.get("memory"), dict):
        ids.add(str(payload["memory"]["id"]))
    if "saved" in payload:
        ids |= {str(item["id"]) for item in payload["results"] if item["id"]}
    return ids


async def save(world: World, namespace: str, key: str, content: str, **extra: Any) -> str:
    headers = world.tenants.headers(namespace, "writer")
    async with httpx.AsyncClient(base_url=world.tenants.url, headers=headers, timeout=30) as client:
        body = {"key": key, "content": content, "title": f"{key} of {namespace}", **extra}
        response = await client.post("/v1/memories", json=body)
    assert response.status_code in (200, 201), response.text
    memory_id: str = response.json()["memory"]["id"]
    world.ids[namespace][key] = memory_id
    world.ever[namespace].add(memory_id)
    return memory_id


@pytest_asyncio.fixture(scope="module")
async def world(tenants: Tenants) -> World:
    """In each namespace: doc-1 → doc-2 linked, and only-<namespace>; all about zephyrs."""
    world = World(tenants)
    for ns in tenants.namespaces:
        world.ids[ns], world.ever[ns] = {}, set()
        await save(world, ns, "doc-2", f"zephyr isolation second note {ns}")
        await save(
            world, ns, "doc-1", f"zephyr isolation first note {ns}", links=[{"key": "doc-2"}]
        )
        await save(world, ns, lone(ns), f"zephyr isolation lone note {ns}")
    return world


def api_for(world: World, transport: str, client: httpx.AsyncClient, ns: str, role: str) -> Any:
    if transport == "http":
        return HttpApi(client)
    return McpApi(f"{world.tenants.url}/mcp", world.tenants.headers(ns, role))


Check = Callable[[World, str, dict[str, Any]], bool]


def lone(namespace: str) -> str:
    """The key of a namespace's lone memory (without the namespace's name, which marks leaks)."""
    return "only-" + namespace.removeprefix("iso-")


def seeded_keys(world: World, ns: str) -> list[str]:
    return sorted(["doc-1", "doc-2", lone(ns)])


def result_keys(payload: dict[str, Any], field_name: str = "results") -> list[str]:
    return sorted(item["key"] for item in payload[field_name])


# Per tool: arguments addressed to namespace `ns` (naming `foreign`'s lone memory by key where
# the tool takes refs) and the exact success of that call. A tool added to TOOLS without an
# entry here fails test_every_tool_has_a_probe.
PROBES: dict[str, tuple[Callable[[World, str, str], dict[str, Any]], Check]] = {
    "memory_save": (
        lambda w, ns, foreign: {"content": "probe save", "key": f"probe-{uuid.uuid4().hex[:8]}"},
        lambda w, ns, p: (p["memory"]["namespace"], p["created"]) == (ns, True),
    ),
    "memory_get": (
        lambda w, ns, foreign: {"keys": ["doc-1", lone(foreign)]},
        lambda w, ns, p: (
            (
                [m["id"] for m in p["memories"]],
                [m["namespace"] for m in p["memories"]],
                p["missing"],
                [link["id"] for link in p["memories"][0]["links"]],
            )
            == ([w.ids[ns]["doc-1"]], [ns], [lone(w.other(ns))], [w.ids[ns]["doc-2"]])
        ),
    ),
    "memory_link": (
        lambda w, ns, foreign: {"from": "doc-1", "to": "doc-2", "weight": 0.7},
        lambda w, ns, p: p["link"]["id"] == w.ids[ns]["doc-2"],
    ),
    "memory_delete": (
        lambda w, ns, foreign: {"keys": ["scratch"]},
        lambda w, ns, p: (p["deleted"], p["missing"]) == (1, []),
    ),
    "memory_search": (
        lambda w, ns, foreign: {"query": "zephyr isolation", "mode": "bm25"},
        lambda w, ns, p: result_keys(p) == seeded_keys(w, ns),
    ),
    "memory_fulltext_search": (
        lambda w, ns, foreign: {"keywords": ["zephyr"]},
        lambda w, ns, p: result_keys(p) == seeded_keys(w, ns),
    ),
    "retrieve_context": (
        lambda w, ns, foreign: {
            "query": "qqqx",
            "search_mode": "graph",
            "max_hops": 5,
            "anchors": ["doc-1", w.ids[foreign]["doc-1"]],
        },
        lambda w, ns, p: (
            [(r["key"], r["path"]) for r in p["results"]] == [("doc-2", ["doc-1", "doc-2"])]
        ),
    ),
    "memory_timeline": (
        lambda w, ns, foreign: {"memoryId": "doc-1", "window": 50},
        lambda w, ns, p: (
            p["anchor"] == w.ids[ns]["doc-1"]
            and {item["id"] for item in p["timeline"]} <= w.ever[ns]
            and {"doc-1", "doc-2", lone(ns)} <= {item["key"] for item in p["timeline"]}
        ),
    ),
    "memory_stats": (
        lambda w, ns, foreign: {},
        lambda w, ns, p: p["linkCount"] == 1,
    ),
    "memory_cleanup": (
        lambda w, ns, foreign: {"force": True, "dry_run": True},
        lambda w, ns, p: (p["evictedCount"], p["evictedIds"]) == (0, []),
    ),
}


def needed(spec: ToolSpec) -> str:
    """The role a tool needs, from the tool table: reading tools `reader`, others `writer`."""
    return "reader" if spec.read_only else "writer"


def test_every_tool_has_a_probe() -> None:
    assert sorted(PROBES) == sorted(TOOLS)


CASES = list(itertools.product(sorted(TOOLS), ("http", "mcp"), (0, 1), ROLES))


@pytest.mark.parametrize(("tool", "transport", "side", "role"), CASES)
async def test_each_tool_in_its_own_and_the_other_namespace(
    world: World, tool: str, transport: str, side: int, role: str
) -> None:
    ns = world.tenants.namespaces[side]
    foreign = world.other(ns)
    make_args, check = PROBES[tool]
    headers = world.tenants.headers(ns, role)
    async with httpx.AsyncClient(base_url=world.tenants.url, headers=headers, timeout=30) as client:
        api = api_for(world, transport, client, ns, role)
        for target in (ns, foreign):
            if tool == "memory_delete":
                await save(world, target, "scratch", "scratch memory")
            arguments = make_args(world, target, ns if target == foreign else foreign)
            if target != ns:
                arguments["namespace"] = target
            payload = await api.call(tool, **arguments)
            world.owned(target, payload)
            allowed = RANK[role] >= RANK[needed(TOOLS[tool])] and (target == ns or role == "admin")
            if not allowed:
                assert (payload["success"], payload["error_type"]) == (False, "forbidden")
                continue
            assert payload["success"] is True, payload
            assert check(world, target, payload), (tool, payload)
    assert world.leaks == []


# The other namespace's memories named by id, without `namespace`: never found, never touched.
BY_ID: dict[str, Callable[[World, str], dict[str, Any]]] = {
    "memory_get": lambda w, f: {"ids": [w.ids[f]["doc-1"]]},
    "memory_link": lambda w, f: {"from": "doc-1", "to": w.ids[f]["doc-2"]},
    "memory_delete": lambda w, f: {"ids": [w.ids[f][lone(f)]]},
    "memory_timeline": lambda w, f: {"memoryId": w.ids[f]["doc-1"]},
    "retrieve_context": lambda w, f: {
        "query": "x",
        "search_mode": "graph",
        "anchors": [w.ids[f]["doc-1"]],
    },
    "memory_save": lambda w, f: {"content": "c", "links": [{"id": w.ids[f]["doc-1"]}]},
}


@pytest.mark.parametrize(
    ("tool", "transport"), list(itertools.product(sorted(BY_ID), ("http", "mcp")))
)
async def test_the_other_namespaces_ids_are_never_found_even_by_an_admin(
    world: World, tool: str, transport: str
) -> None:
    ns, foreign = world.tenants.namespaces
    headers = world.tenants.headers(ns, "admin")
    async with httpx.AsyncClient(base_url=world.tenants.url, headers=headers, timeout=30) as client:
        api = api_for(world, transport, client, ns, "admin")
        payload = await api.call(tool, **BY_ID[tool](world, foreign))
    world.owned(ns, {k: v for k, v in payload.items() if k not in ("missing", "message", "error")})
    wanted = BY_ID[tool](world, foreign)
    named = wanted.get("ids") or [wanted.get("to") or wanted.get("memoryId")]
    if tool == "memory_get":
        assert (payload["memories"], payload["missing"]) == ([], named)
    elif tool == "memory_delete" and transport == "mcp":
        assert (payload["deleted"], payload["missing"]) == (0, named)
    elif tool == "retrieve_context":
        assert (payload["success"], payload["results"]) == (True, [])
    else:
        assert (payload["success"], payload["error_type"]) == (False, "not_found"), payload
    assert world.leaks == []


HTTP_ONLY: list[tuple[str, str, Callable[[World], dict[str, Any]], int]] = [
    ("GET", "/v1/memories/{ref}", lambda w: {}, 200),
    ("PATCH", "/v1/memories/{ref}", lambda w: {"json": {"tags": ["patched"]}}, 200),
    ("DELETE", "/v1/memories/{ref}/links/{target}", lambda w: {}, 404),
    ("POST", "/v1/memories/batch", lambda w: {"json": {"memories": [{"content": "b"}]}}, 200),
]


@pytest.mark.parametrize(("side", "role"), list(itertools.product((0, 1), ROLES)))
async def test_http_only_routes_follow_the_same_roles_and_namespaces(
    world: World, side: int, role: str
) -> None:
    ns = world.tenants.namespaces[side]
    foreign = world.other(ns)
    headers = world.tenants.headers(ns, role)
    async with httpx.AsyncClient(base_url=world.tenants.url, headers=headers, timeout=30) as client:
        for method, path, extra, status in HTTP_ONLY:
            writes = method != "GET"
            url = path.format(ref="doc-1", target=lone(foreign))
            own = await client.request(method, url, **extra(world))
            other = await client.request(method, url, params={"namespace": foreign}, **extra(world))
            for target, response in ((ns, own), (foreign, other)):
                world.owned(target, response.json())
                allowed = (not writes or RANK[role] >= 1) and (target == ns or role == "admin")
                expected = status if allowed else 403
                assert response.status_code == expected, (method, path, role, response.text)
    assert world.leaks == []


@pytest.mark.parametrize(("side", "role"), list(itertools.product((0, 1), ROLES)))
async def test_export_and_import_follow_the_same_roles_and_namespaces(
    world: World, side: int, role: str
) -> None:
    ns = world.tenants.namespaces[side]
    foreign = world.other(ns)
    headers = world.tenants.headers(ns, role)
    async with httpx.AsyncClient(base_url=world.tenants.url, headers=headers, timeout=60) as client:
        for target in (ns, foreign):
            params = {} if target == ns else {"namespace": foreign}
            exported = await client.get(EXPORT_PATH, params=params)
            readable = target == ns or role == "admin"
            lines: list[dict[str, Any]] = []
            assert exported.status_code == (200 if readable else 403), (role, exported.text)
            if readable:
                lines = [json.loads(line) for line in exported.text.splitlines()]
                assert lines[0]["namespace"] == target
                for line in lines[1:]:
                    world.owned(target, line)
            body = "\n".join(json.dumps(line) for line in lines) if readable else "{}"
            restored = await client.post(IMPORT_PATH, params=params, content=body)
            writable = RANK[role] >= 1 and (target == ns or role == "admin")
            assert restored.status_code == (200 if writable else 403), (role, restored.text)
            if writable and readable:
                report = restored.json()
                assert (report["memories"]["created"], report["failed"]) == (0, 0)
                world.owned(target, report)
    assert world.leaks == []


async def test_every_v1_route_is_in_the_matrix(world: World) -> None:
    async with httpx.AsyncClient(base_url=world.tenants.url) as client:
        spec = (await client.get("/openapi.json")).json()
    routes = {(m.upper(), p) for p, ops in spec["paths"].items() for m in ops if "/v1/" in p}
    covered = {(spec.method, spec.path) for spec in TOOLS.values()}
    covered |= {(method, path) for method, path, _, _ in HTTP_ONLY}
    covered |= {("GET", EXPORT_PATH), ("POST", IMPORT_PATH)}  # the backup test below
    assert routes == covered


async def test_an_admin_link_across_namespaces_is_refused_and_none_exists(
    world: World, census_store: GraphStore
) -> None:
    ns, foreign = world.tenants.namespaces
    api = McpApi(f"{world.tenants.url}/mcp", world.tenants.headers(ns, "admin"))
    into_foreign = await api.call(
        "memory_link", namespace=foreign, **{"from": "doc-1", "to": world.ids[ns]["doc-2"]}
    )
    out_of_own = await api.call(
        "memory_link", **{"from": "doc-1", "to": world.ids[foreign]["doc-1"]}
    )
    (census,) = await census_store.read("isolation_census", namespace="")
    assert [into_foreign["error_type"], out_of_own["error_type"]] == ["not_found", "not_found"]
    assert census["cross_namespace_links"] == 0
    assert world.leaks == []
