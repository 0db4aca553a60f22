"""A namespace survives the loss of every volume: export, `make stack-clean` (volumes removed),
`make stack-up`, import; the export reads back the same, ids, keys, links and timestamps included,
and every search and retrieve answers exactly as before."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx

from tests.stack.stack import Stack

NAMESPACE = "backup-roundtrip"
MEMORIES: list[dict[str, Any]] = [
    {
        "key": "db",
        "type": "decision",
        "title": "Database",
        "content": "We store memories in Neo4j and vectors in a Qdrant server",
        "tags": ["arch", "storage"],
        "score": 90,
        "metadata": {"source": "adr-7", "nested": {"n": [1, 2]}},
        "session_id": "s1",
    },
    {"key": "deploy", "content": "The team runs the stack with docker compose", "score": 40},
    {"key": "backup", "content": "Each namespace is exported nightly as JSON Lines"},
    {"key": "old-port", "content": "The HTTP API listens on port 9000"},
    {
        "key": "new-port",
        "content": "The HTTP API listens on port 8090 in the test stack",
        "supersedes": ["old-port"],
        "links": [
            {"key": "deploy", "weight": 0.2, "type": "see_also"},
            {"key": "db", "weight": 0.9, "term": "stack"},
        ],
    },
]
QUESTIONS = ("Where are the vectors stored?", "Which port does the API use?", "nightly backup")


async def populate(client: httpx.AsyncClient) -> None:
    for body in MEMORIES:
        response = await client.post("/v1/memories", params={"namespace": NAMESPACE}, json=body)
        assert response.status_code == 201, response.text
    linked = await client.put(
        "/v1/memories/backup/links/db",
        params={"namespace": NAMESPACE},
        json={"weight": 0.7, "term": "what"},
    )
    assert linked.status_code == 200, linked.text


async def export(client: httpx.AsyncClient) -> list[dict[str, Any]]:
    """The export's lines, the header's time of export left out."""
    response = await client.get("/v1/export", params={"namespace": NAMESPACE})
    assert response.status_code == 200, response.text
    lines = [json.loads(line) for line in response.text.splitlines()]
    assert lines[0].pop("exported_at")
    return lines


async def answers(client: httpx.AsyncClient) -> list[Any]:
    """Every read that does not count as an access: searches in each mode, retrieve_context in
    each mode, the timeline and the stats."""
    found: list[Any] = []
    ns = {"namespace": NAMESPACE}
    for question in QUESTIONS:
        for mode in ("hybrid", "vector", "bm25"):
            params = {**ns, "query": question, "mode": mode}
            found.append((await client.get("/v1/search", params=params)).json())
        for search_mode in ("hybrid", "vector", "keyword", "kv", "graph"):
            body = {**ns, "query": question, "search_mode": search_mode, "sort_by": "relevance"}
            found.append(comparable((await client.post("/v1/retrieve", json=body)).json()))
    found.append((await client.get("/v1/memories/db/timeline", params=ns)).json())
    found.append((await client.get("/v1/stats", params=ns)).json())
    return found


def comparable(retrieved: dict[str, Any]) -> dict[str, Any]:
    """A retrieve answer without the BM25 score of the context texts and the fused score made
    with it, and in hybrid in key order. Lucene's statistics count every version of a document
    until its segments merge, and the background indexer rewrites a memory's context text as
    its links arrive: one by one after single saves, at once after an import. The texts are the
    same (and every other channel's score and the ids), their BM25 scores a little apart, which
    can swap two hybrid results of close relevance."""
    results = [
        {
            **{name: value for name, value in result.items() if name != "score"},
            "scores": {
                name: value for name, value in result["scores"].items() if name != "keyword_context"
            },
        }
        for result in retrieved["results"]
    ]
    if retrieved.get("search_mode_used") == "hybrid":
        results.sort(key=lambda result: str(result["key"]))
    return {**retrieved, "results": results}


async def settled(client: httpx.AsyncClient, timeout_s: float = 120) -> list[Any]:
    """The answers once the service's context backlog is empty (/readyz): the graph-contextual
    texts and vectors are refreshed in the background after saves, links and imports."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        backlog = (await client.get("/readyz")).json()["contextBacklog"]
        if backlog["pending"] == backlog["approximate"] == 0:
            return await answers(client)
        await asyncio.sleep(0.5)
    raise AssertionError("the context backlog did not drain")


async def test_export_clean_up_import_gives_identical_results(stack: Stack) -> None:
    # The session starts clean and runs this test first: a world of this namespace only.
    async with httpx.AsyncClient(
        base_url=stack.url, headers=stack.admin_headers(), timeout=60
    ) as client:
        await populate(client)
        exported = await export(client)
        before = await settled(client)
        body = "".join(json.dumps(line) + "\n" for line in exported)
    assert exported[-1] == {"kind": "end", "memories": 5, "links": 3}

    stack.down(volumes=True)  # `make stack-clean`
    stack.up(build=False)  # `make stack-up`
    async with httpx.AsyncClient(
        base_url=stack.url, headers=stack.admin_headers(), timeout=60
    ) as client:
        empty = (await client.get("/v1/stats", params={"namespace": NAMESPACE})).json()
        assert empty["memoryCount"] == 0  # the volumes really went
        imported = await client.post(
            "/v1/import",
            params={"namespace": NAMESPACE},
            content=body.encode(),
            headers={"Content-Type": "application/x-ndjson"},
        )
        assert imported.status_code == 200, imported.text
        report = imported.json()
        restored = await export(client)
        after = await settled(client)
    assert report == {
        "success": True,
        "memories": {"created": 5, "updated": 0, "remapped": 0},
        "links": 3,
        "superseded": 1,
        "failed": 0,
        "complete": True,
        "errors": [],
        "errors_listed": 0,
    }
    assert restored == exported
    assert after == before
