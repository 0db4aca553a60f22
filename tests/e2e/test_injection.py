"""Hostile text in every text parameter of every tool, over a real server with keys: Cypher and
Lucene injection strings change nothing outside the namespace they were sent to, are stored
and returned exactly as given, and leak nothing (no 5xx, no stack trace, no other namespace)."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any
from urllib.parse import quote

import httpx
import pytest_asyncio

from service.stores.graph_store import GraphStore
from tests.e2e.conftest import Tenants

CYPHER = [
    "' OR 1=1 //",
    '" OR "1"="1',
    "'}) MATCH (n) DETACH DELETE n //",
    '"}) MATCH (n) DETACH DELETE n RETURN 1 //',
    "x') WITH 1 AS x MATCH (m:Memory) SET m.namespace = 'pwned' //",
    "` DETACH DELETE m //",
    "$namespace",
    "{namespace: 'iso'}",
    "1; MATCH (n) SET n.namespace = 'pwned'",
    "CALL db.labels() YIELD label RETURN label",
    "MERGE (x:Memory {namespace: 'other', key: 'x'}) RETURN x",
    "/* */ MATCH (n) RETURN n LIMIT 1",
    "LOAD CSV FROM 'file:///etc/passwd' AS line RETURN line",
    "CALL apoc.cypher.runFirstColumnMany('MATCH (n) DETACH DELETE n', {})",
    "\\' OR \\'1\\'=\\'1",
]
LUCENE = [
    "*",
    "*:*",
    "namespace:*",
    "content:* OR title:*",
    'namespace:"iso-a"',
    "a AND NOT b",
    '"unclosed',
    "(",
    ")",
    "[* TO *]",
    "{a TO b}",
    "zephyr~2",
    "zephyr^100",
    "/.*/",
    "\\",
    "&& || !",
    "?",
    "AND",
    "OR NOT",
    "key:doc-1",
]
OTHER = [
    " ",
    "\x00",
    "'; --",
    "<script>alert(1)</script>",
    "${jndi:ldap://example.invalid/a}",
    "../../etc/passwd",
    "%00%27",
    "\u202e\u0000\ufeff",
    "\U0001d54f zephyr \u2603",
    "x" * 10_001,
]
CORPUS = CYPHER + LUCENE + OTHER
LEAK_SIGNS = ("Traceback", 'File "/', "Neo.ClientError", "org.apache.lucene", "CypherSyntax")
ANSWERS = {200, 201, 400, 404, 413}

Call = tuple[str, str, dict[str, Any]]  # method, path, httpx keyword arguments

# Each save field, the rule that admits a string into it, and how it is read back.
FIELDS: dict[str, tuple[Callable[[str], bool], Callable[[str], Any]]] = {
    "content": (lambda t: 1 <= len(t.encode()) <= 100 * 1024, lambda t: t),
    "title": (lambda t: len(t) <= 512, lambda t: t),
    "summary": (lambda t: len(t) <= 2000, lambda t: t),
    "tags": (lambda t: 1 <= len(t) <= 64, lambda t: [t]),
    "metadata": (lambda t: len(json.dumps({t: t})) <= 16 * 1024, lambda t: {t: t}),
    "session_id": (lambda t: 1 <= len(t) <= 128, lambda t: t),
}


def calls_for(text: str, i: int) -> list[Call]:
    """One call per text parameter of every tool (and its HTTP-only twins), carrying `text`;
    the save fields all at once here, one by one in `batches`."""
    every_field = {name: wrap(text) for name, (_, wrap) in FIELDS.items()}
    return [
        ("POST", "/v1/memories", {"json": {**every_field, "key": f"all-{i}"}}),
        ("POST", "/v1/memories", {"json": {"content": "k", "key": text}}),
        ("POST", "/v1/memories", {"json": {"content": "y", "type": text}}),
        ("POST", "/v1/memories/get", {"json": {"keys": [text]}}),
        ("GET", "/v1/search", {"params": {"query": text, "mode": "bm25"}}),
        ("GET", "/v1/search", {"params": {"query": text}}),
        ("GET", "/v1/search", {"params": {"query": "zephyr", "type": text, "tags": text}}),
        ("GET", "/v1/fulltext", {"params": {"keywords": text}}),
        ("POST", "/v1/retrieve", {"json": {"query": text}}),
        ("POST", "/v1/retrieve", {"json": {"query": text, "search_mode": "kv"}}),
        ("POST", "/v1/retrieve", {"json": {"query": "zephyr", "type": text}}),
        ("POST", "/v1/retrieve", {"json": {"query": "z", "filters": {"tags": [text]}}}),
        (
            "POST",
            "/v1/retrieve",
            {"json": {"query": "z", "search_mode": "graph", "anchors": [text]}},
        ),
        ("PUT", "/v1/memories/anchor/links/target", {"json": {"term": text}}),
        ("PUT", "/v1/memories/anchor/links/target", {"json": {"type": text}}),
        ("DELETE", "/v1/memories/anchor/links/target", {"params": {"type": text}}),
        ("GET", "/v1/memories/anchor/timeline", {"params": {"sortLinks": text}}),
        ("DELETE", f"/v1/memories/{quote(text, safe='')}", {}),
    ]


def batches() -> list[Call]:
    """One batch per save field: every corpus string in that field alone."""
    return [
        (
            "POST",
            "/v1/memories/batch",
            {
                "json": {
                    "memories": [
                        {"content": "b", name: wrap(text), "key": f"{name}-{i}"}
                        for i, text in enumerate(CORPUS)
                    ]
                }
            },
        )
        for name, (_, wrap) in FIELDS.items()
    ]


def expected_fields() -> dict[str, dict[str, Any]]:
    """Key → the fields it must read back with, for every save the rules admit."""
    expected: dict[str, dict[str, Any]] = {}
    for i, text in enumerate(CORPUS):
        if all(admits(text) for admits, _ in FIELDS.values()):
            expected[f"all-{i}"] = {name: wrap(text) for name, (_, wrap) in FIELDS.items()}
        for name, (admits, wrap) in FIELDS.items():
            if admits(text):
                expected[f"{name}-{i}"] = {name: wrap(text)}
    return expected


class Probe:
    """Sends the corpus as admin of `namespace` and keeps what the answers said."""

    def __init__(self, client: httpx.AsyncClient, namespace: str, guarded: list[str]) -> None:
        self.client, self.namespace, self.guarded = client, namespace, guarded
        self.statuses: dict[int, int] = {}
        self.leaks: list[str] = []

    async def send(self, method: str, path: str, kwargs: dict[str, Any]) -> httpx.Response:
        params = {**kwargs.pop("params", {}), "namespace": self.namespace}
        if path.endswith(("/get", "/retrieve")):
            kwargs["json"] = {**kwargs["json"], "namespace": self.namespace}
        response = await self.client.request(method, path, params=params, **kwargs)
        self.statuses[response.status_code] = self.statuses.get(response.status_code, 0) + 1
        text = response.text
        if response.status_code not in ANSWERS or any(s in text for s in LEAK_SIGNS):
            self.leaks.append(f"{method} {path} {response.status_code} {text[:300]}")
        if any(marker in text for marker in self.guarded):
            self.leaks.append(f"{method} {path} answered another namespace: {text[:300]}")
        return response


async def seed(client: httpx.AsyncClient, namespace: str | None, key: str) -> dict[str, Any]:
    params = {"namespace": namespace} if namespace else {}
    body = {"key": key, "content": f"zephyr DETACH DELETE {key}", "title": key}
    response = await client.post("/v1/memories", json=body, params=params)
    assert response.status_code in (200, 201), response.text
    return response.json()["memory"]


@pytest_asyncio.fixture
async def client(tenants: Tenants) -> AsyncIterator[httpx.AsyncClient]:
    headers = tenants.scratch_headers()
    async with httpx.AsyncClient(base_url=tenants.url, headers=headers, timeout=60) as client:
        yield client


async def snapshot(client: httpx.AsyncClient, namespaces: tuple[str, str]) -> list[Any]:
    """What the neighbour namespaces hold: their stats (sizes, counts) and their memories."""
    state: list[Any] = []
    for ns in namespaces:
        stats = (await client.get("/v1/stats", params={"namespace": ns})).json()
        got = await client.post("/v1/memories/get", json={"keys": ["bystander"], "namespace": ns})
        memories = [
            {k: m[k] for k in ("id", "content", "title", "updated_at", "links")}
            for m in got.json()["memories"]
        ]
        state.append(({k: stats[k] for k in ("memoryCount", "linkCount", "dbSizeBytes")}, memories))
    return state


async def test_injection_strings_change_nothing_elsewhere_and_round_trip_exactly(
    tenants: Tenants, client: httpx.AsyncClient, census_store: GraphStore
) -> None:
    target = f"inj-{uuid.uuid4().hex[:10]}"

    suffix = uuid.uuid4().hex[:10]
    neighbours = (f"bystander-{suffix}", f"onlooker-{suffix}")
    bystanders = [(await seed(client, ns, "bystander"))["id"] for ns in neighbours]
    await seed(client, target, "anchor")
    await seed(client, target, "target")
    before = await snapshot(client, neighbours)
    (census_before,) = await census_store.read("isolation_census", namespace=target)
    probe = Probe(client, target, [*neighbours, *tenants.namespaces, *bystanders])
    gate = asyncio.Semaphore(4)
    results: list[tuple[str, int, httpx.Response]] = []

    async def one(text: str, i: int, call: Call) -> None:
        async with gate:
            results.append((text, i, await probe.send(*call)))

    async with asyncio.TaskGroup() as tasks:
        for i, text in enumerate(CORPUS):
            for call in calls_for(text, i):
                tasks.create_task(one(text, i, call))
        for call in batches():
            tasks.create_task(one("", -1, call))
    stored = await read_back(client, target)
    after = await snapshot(client, neighbours)
    (census_after,) = await census_store.read("isolation_census", namespace=target)
    assert probe.leaks == []
    assert len(results) == len(CORPUS) * 18 + len(FIELDS)
    assert before == after
    assert census_after == census_before
    assert census_after["cross_namespace_links"] == 0
    assert stored == expected_fields()


async def read_back(client: httpx.AsyncClient, namespace: str) -> dict[str, dict[str, Any]]:
    """The fields each expected key holds now."""
    wanted = expected_fields()
    body = {"keys": sorted(wanted), "namespace": namespace}
    memories = (await client.post("/v1/memories/get", json=body)).json()["memories"]
    return {m["key"]: {name: m[name] for name in wanted[m["key"]]} for m in memories}


def test_the_corpus_is_what_the_closing_figures_count() -> None:
    assert (len(CYPHER), len(LUCENE), len(OTHER)) == (15, 20, 10)
    assert len({json.dumps(text) for text in CORPUS}) == len(CORPUS)
