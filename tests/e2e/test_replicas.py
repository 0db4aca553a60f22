"""Replicas: two `mnemograph serve` on one Neo4j and one Qdrant server serve the same memories at
once and split the context backlog; two with embedded stores keep to their own saves."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

from bench.common import open_driver
from service.config import Settings
from service.data_folder import lock
from service.stores.graph_store import GraphStore
from service.stores.vector_store import EdgeVectorStore, collection_name
from tests.e2e.conftest import HttpApi, serving, wait_context_drained
from tests.qdrant_process import QdrantPeer

API_KEY = "replicas-key"
SAVES = 24
CONTEXT_STATE = """
    MATCH (m:Memory {namespace: $ns})
    RETURN m.key AS key, m.context_state AS state,
           EXISTS { MATCH (:ContextClaim {id: m.id}) } AS claimed, m.context_seq AS seq,
           m.vector_store AS store
    ORDER BY key
"""


@pytest.fixture(scope="module")
def qdrant(tmp_path_factory: pytest.TempPathFactory) -> Iterator[QdrantPeer]:
    """A Qdrant server of this module's own: its collections hold only these tests' points."""
    peer = QdrantPeer(tmp_path_factory.mktemp("replicas-qdrant"), api_key=API_KEY)
    peer.start()
    try:
        yield peer
    finally:
        peer.stop()


@pytest.fixture(scope="module")
def replicas(
    settings: Settings, qdrant: QdrantPeer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str]]:
    """Two replicas on the session's Neo4j and that Qdrant, each with its own data folder."""
    env = {"MNEMO_QDRANT__URL": qdrant.url, "MNEMO_QDRANT__API_KEY": API_KEY}
    with (
        serving(settings, tmp_path_factory.mktemp("replica-a"), **env) as a,
        serving(settings, tmp_path_factory.mktemp("replica-b"), **env) as b,
    ):
        yield a, b


@pytest_asyncio.fixture
async def apis(replicas: tuple[str, str]) -> AsyncIterator[tuple[HttpApi, HttpApi]]:
    async with (
        httpx.AsyncClient(base_url=replicas[0], timeout=60) as a,
        httpx.AsyncClient(base_url=replicas[1], timeout=60) as b,
    ):
        yield HttpApi(a), HttpApi(b)


@pytest_asyncio.fixture
async def qdrant_http(qdrant: QdrantPeer) -> AsyncIterator[httpx.AsyncClient]:
    """Qdrant's REST API, with its key."""
    async with httpx.AsyncClient(base_url=qdrant.url, headers={"api-key": API_KEY}) as http:
        yield http


async def context_rows(settings: Settings, ns: str) -> list[tuple[Any, ...]]:
    """(key, context state, whether a claim is held, context seq, vector storage) of each
    memory."""
    async with open_driver(settings.neo4j) as driver:
        records, _, _ = await driver.execute_query(CONTEXT_STATE, ns=ns)
    return [tuple(record.values()) for record in records]


async def embedded_counts(data_dir: Path, model: str, ns: str) -> tuple[int, int]:
    """With its service stopped: the namespace's points in a data folder's embedded memories
    and context collections."""
    counts: list[int] = []
    with lock.owning(data_dir, "test"):
        for suffix in ("", "__context"):
            store = EdgeVectorStore(data_dir / "qdrant" / (collection_name(model) + suffix), 384)
            await store.open()
            try:
                counts.append(await store.count(ns))
            finally:
                await store.close()
    return counts[0], counts[1]


def channels(retrieved: dict[str, Any]) -> set[str]:
    """The channels that scored any result of a retrieve_context answer."""
    return {name for result in retrieved["results"] for name in result["scores"]}


async def test_services_with_embedded_stores_on_one_neo4j_refresh_only_their_own_saves_context(
    settings: Settings, graph: GraphStore, tmp_path: Path, namespace: str
) -> None:
    folders = tmp_path / "a", tmp_path / "b"
    for folder in folders:
        folder.mkdir()
    contents = [f"embedded note {n}: the {uuid.uuid4().hex} rollout" for n in range(6)]
    with serving(settings, folders[0]) as url_a, serving(settings, folders[1]) as url_b:
        async with (
            httpx.AsyncClient(base_url=url_a, timeout=60) as http_a,
            httpx.AsyncClient(base_url=url_b, timeout=60) as http_b,
        ):
            a, b = HttpApi(http_a), HttpApi(http_b)
            for n, content in enumerate(contents):
                await a.call("memory_save", namespace=namespace, key=f"e{n}", content=content)
            await wait_context_drained(graph, namespace)
            query = {"namespace": namespace, "query": contents[0], "sort_by": "relevance"}
            through_a = await a.call("retrieve_context", **query)
            through_b = await b.call("retrieve_context", **query)
    model = settings.embedding.model
    store_a = (folders[0] / "qdrant" / f"{collection_name(model)}.store_id").read_text().strip()
    assert await context_rows(settings, namespace) == [
        (f"e{n}", "ok", False, 1, store_a) for n in range(6)
    ]
    assert await embedded_counts(folders[0], model, namespace) == (6, 6)
    assert await embedded_counts(folders[1], model, namespace) == (0, 0)
    # A finds the memory by its own vector and its context vector; B, on its empty embedded
    # store, by Neo4j's channels alone.
    assert through_a["results"][0]["key"] == "e0"
    assert {"vector", "vector_context"} <= channels(through_a)
    assert through_b["results"][0]["key"] == "e0"
    assert channels(through_b) & {"vector", "vector_context"} == set()


async def test_a_memory_saved_through_one_replica_is_found_through_the_other_at_once(
    apis: tuple[HttpApi, HttpApi], namespace: str
) -> None:
    seen: list[tuple[Any, ...]] = []
    expected: list[tuple[Any, ...]] = []
    sentences = (
        "The {} migration runs nightly on the billing cluster",
        "Support staff follow the {} checklist when a customer cannot log in",
    )  # unlike each other: each is the best match of its own text
    for (writer, reader), sentence in zip((apis, apis[::-1]), sentences, strict=True):
        word = f"quokka{uuid.uuid4().hex[:8]}"
        key, content = f"k-{word}", sentence.format(word)
        saved = await writer.call("memory_save", namespace=namespace, key=key, content=content)
        got = await reader.call("memory_get", namespace=namespace, key=key)
        fulltext = await reader.call("memory_fulltext_search", namespace=namespace, keywords=[word])
        vector = await reader.call(
            "memory_search", namespace=namespace, query=content, mode="vector"
        )
        retrieved = await reader.call(
            "retrieve_context", namespace=namespace, query=content, sort_by="relevance"
        )
        top = retrieved["results"][0]
        seen.append(
            (
                saved["created"],
                [(m["key"], m["content"]) for m in got["memories"]],
                [r["key"] for r in fulltext["results"]],
                (vector["results"][0]["key"], vector["results"][0]["matchType"]),
                (top["key"], sorted({"vector", "keyword"} & set(top["scores"]))),
            )
        )
        expected.append(
            (True, [(key, content)], [key], (key, "vector"), (key, ["keyword", "vector"]))
        )
    assert seen == expected


async def test_a_link_made_through_one_replica_is_seen_through_the_other(
    apis: tuple[HttpApi, HttpApi], namespace: str
) -> None:
    a, b = apis
    for key in ("source", "target"):
        await a.call("memory_save", namespace=namespace, key=key, content=f"the {key} memory")
    await b.call(
        "memory_link", namespace=namespace, **{"from": "source", "to": "target"}, weight=0.8
    )
    linked = await a.call("memory_get", namespace=namespace, key="source")
    await a.call(
        "memory_link", namespace=namespace, **{"from": "source", "to": "target"}, remove=True
    )
    unlinked = await b.call("memory_get", namespace=namespace, key="source")
    links = [(link["key"], link["weight"]) for link in linked["memories"][0]["links"]]
    assert links == [("target", 0.8)]
    assert unlinked["memories"][0]["links"] == []


async def walks_in_process(api: HttpApi) -> float:
    """The graph walks this replica ran over a link graph it holds (its /metrics)."""
    metrics = (await api.client.get("/metrics")).text
    found = re.search(r'^mnemograph_link_graph\{outcome="current"\} (\S+)$', metrics, re.M)
    return float(found.group(1)) if found else 0.0


async def test_a_walk_held_in_process_by_one_replica_follows_links_made_through_the_other(
    apis: tuple[HttpApi, HttpApi], namespace: str
) -> None:
    a, b = apis
    for key in ("hub", "left", "right"):
        await a.call("memory_save", namespace=namespace, key=key, content=f"the {key} memory")
    await a.call("memory_link", namespace=namespace, **{"from": "hub", "to": "left"}, weight=0.6)
    query = {"namespace": namespace, "query": "hub", "search_mode": "graph", "anchors": ["hub"]}

    async def reached() -> tuple[list[str], float]:
        before = await walks_in_process(a)
        found = await a.call("retrieve_context", **query)
        keys = [result["key"] for result in found["results"]]
        return keys, await walks_in_process(a) - before

    keys, in_process = await reached()
    for _ in range(200):  # until A has loaded the namespace's link graph
        if in_process:
            break
        await asyncio.sleep(0.05)
        keys, in_process = await reached()
    assert (keys, in_process) == (["left"], 1.0)
    await b.call("memory_link", namespace=namespace, **{"from": "hub", "to": "right"}, weight=0.9)
    assert await reached() == (["right", "left"], 0.0)
    await b.call("memory_link", namespace=namespace, **{"from": "hub", "to": "left"}, remove=True)
    assert (await reached())[0] == ["right"]


async def test_saves_spread_over_two_replicas_have_their_context_refreshed_once_each(
    apis: tuple[HttpApi, HttpApi],
    qdrant_http: httpx.AsyncClient,
    settings: Settings,
    graph: GraphStore,
    namespace: str,
) -> None:
    keys = [f"c{n:02d}" for n in range(SAVES)]
    async with asyncio.TaskGroup() as saves:
        for n, key in enumerate(keys):
            content = f"context note {n}: {uuid.uuid4().hex}"
            saves.create_task(
                apis[n % 2].call("memory_save", namespace=namespace, key=key, content=content)
            )
    await wait_context_drained(graph, namespace)
    model = settings.embedding.model
    memories = collection_name(model)
    info = (await qdrant_http.get(f"/collections/{memories}")).json()["result"]
    store = info["config"]["metadata"]["mnemograph_store_id"]
    in_namespace = {"must": [{"key": "namespace", "match": {"value": namespace}}]}
    counts = [
        (
            await qdrant_http.post(
                f"/collections/{name}/points/count", json={"filter": in_namespace, "exact": True}
            )
        ).json()["result"]["count"]
        for name in (memories, memories + "__context")
    ]
    # Each memory was marked once (seq 1), refreshed (ok) and released (no lease) by one of the
    # two replicas, both writing to the same storage.
    assert await context_rows(settings, namespace) == [(key, "ok", False, 1, store) for key in keys]
    assert counts == [SAVES, SAVES]
