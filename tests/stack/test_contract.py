"""The contract's scenarios against the running stack (the image, Neo4j and a Qdrant server), over
HTTP and over MCP at /mcp with an API key: save, get, link, search, retrieve_context, delete."""

from __future__ import annotations

from typing import Any

import httpx

from tests.e2e.conftest import Api
from tests.stack.stack import Stack

DB = "We store memories in Neo4j and their vectors in Qdrant"
ENGINE = "Qdrant runs as a server next to the service in the team stack"
LUNCH = "The team orders pizza on Fridays"
STAMPS = ("created_at", "updated_at", "accessed_at")


def without(record: dict[str, Any], *names: str) -> dict[str, Any]:
    return {name: value for name, value in record.items() if name not in names}


async def test_readyz_reports_the_qdrant_server_engine(stack: Stack) -> None:
    async with httpx.AsyncClient(base_url=stack.url, timeout=30) as client:
        response = await client.get("/readyz")  # a probe: no key needed
    body = response.json()
    assert response.status_code == 200
    assert body["success"] is True
    assert {name: check["status"] for name, check in body["checks"].items()} == {
        "neo4j": "ok",
        "qdrant": "ok",
        "embedder": "ok",
    }
    assert body["checks"]["qdrant"]["engine"] == "qdrant-server"
    assert body["checks"]["embedder"]["model"] == "all-MiniLM-L6-v2"


async def save_three(api: Api, namespace: str) -> dict[str, dict[str, Any]]:
    """db-choice; vector-engine, linked to db-choice (related, 0.8, "stores"); lunch."""
    db = await api.call(
        "memory_save",
        namespace=namespace,
        key="db-choice",
        type="decision",
        title="Database",
        content=DB,
        tags=["arch"],
        score=90,
    )
    engine = await api.call(
        "memory_save",
        namespace=namespace,
        key="vector-engine",
        title="Vectors",
        content=ENGINE,
        score=60,
        links=[{"key": "db-choice", "weight": 0.8, "term": "stores"}],
    )
    lunch = await api.call("memory_save", namespace=namespace, key="lunch", content=LUNCH)
    assert (db["created"], engine["created"], lunch["created"]) == (True, True, True)
    return {"db": db["memory"], "engine": engine["memory"], "lunch": lunch["memory"]}


async def test_save_get_and_link(api: Api, namespace: str) -> None:
    saved = await save_three(api, namespace)
    assert without(saved["db"], "id", *STAMPS) == {
        "key": "db-choice",
        "namespace": namespace,
        "type": "decision",
        "title": "Database",
        "summary": DB,
        "content": DB,
        "tags": ["arch"],
        "score": 90.0,
        "metadata": {},
        "session_id": None,
        "access_count": 0,
        "superseded_by": None,
        "superseded_at": None,
        "supersedes": [],
        "links": [],
    }
    linked = await api.call(
        "memory_link",
        namespace=namespace,
        weight=0.3,
        type="see_also",
        **{"from": "lunch"},
        to="db-choice",
    )
    to_db = {"id": saved["db"]["id"], "key": "db-choice", "score": 90.0, "summary": DB}
    assert without(linked["link"], "created_at") == {
        **to_db,
        "type": "see_also",
        "term": None,
        "weight": 0.3,
        "combined_score": 27.0,
    }
    got = await api.call("memory_get", namespace=namespace, keys=["vector-engine", "lunch", "nope"])
    assert got["missing"] == ["nope"]
    engine, lunch = got["memories"]
    assert (engine["id"], engine["content"], engine["access_count"]) == (
        saved["engine"]["id"],
        ENGINE,
        1,
    )
    assert [without(link, "created_at") for link in engine["links"]] == [
        {**to_db, "type": "related", "term": "stores", "weight": 0.8, "combined_score": 72.0}
    ]
    assert (lunch["id"], [link["key"] for link in lunch["links"]]) == (
        saved["lunch"]["id"],
        ["db-choice"],
    )


async def test_search_and_retrieve_context(api: Api, namespace: str) -> None:
    await save_three(api, namespace)
    await api.call("memory_link", namespace=namespace, to="db-choice", **{"from": "lunch"})
    question = "Which database holds the memories?"
    by_vector = await api.call("memory_search", namespace=namespace, query=question, mode="vector")
    assert [(hit["key"], hit["matchType"]) for hit in by_vector["results"]] == [
        ("db-choice", "vector")
    ]
    assert round(by_vector["results"][0]["score"], 2) == 0.65
    by_keyword = await api.call("memory_search", namespace=namespace, query="pizza", mode="bm25")
    assert [(hit["key"], hit["matchType"]) for hit in by_keyword["results"]] == [("lunch", "bm25")]
    graph = await api.call(
        "retrieve_context", namespace=namespace, query="vector-engine", search_mode="graph"
    )
    assert [
        (hit["key"], hit["source"], hit["score"], hit["hop_distance"], hit["path"])
        for hit in graph["results"]
    ] == [
        ("lunch", "graph", 0.4, 2, ["vector-engine", "db-choice", "lunch"]),
        ("db-choice", "graph", 1 / 1.5, 1, ["vector-engine", "db-choice"]),
    ]  # sort_by timestamp: newest first
    assert (graph["total_count"], graph["search_mode_used"]) == (2, "graph")
    hybrid = await api.call(
        "retrieve_context", namespace=namespace, query=question, sort_by="relevance"
    )
    keys = [hit["key"] for hit in hybrid["results"]]
    assert (keys[0], sorted(keys)) == ("db-choice", ["db-choice", "lunch", "vector-engine"])


async def test_delete_takes_the_memory_and_its_links(api: Api, namespace: str) -> None:
    saved = await save_three(api, namespace)
    await api.call("memory_link", namespace=namespace, to="db-choice", **{"from": "lunch"})
    deleted = await api.call("memory_delete", namespace=namespace, keys=["lunch"])
    assert deleted == {"success": True, "deleted": 1, "missing": []}
    got = await api.call("memory_get", namespace=namespace, keys=["lunch"])
    assert (got["memories"], got["missing"]) == ([], ["lunch"])
    graph = await api.call(
        "retrieve_context", namespace=namespace, query="vector-engine", search_mode="graph"
    )
    assert [(hit["id"], hit["hop_distance"]) for hit in graph["results"]] == [
        (saved["db"]["id"], 1)
    ]
