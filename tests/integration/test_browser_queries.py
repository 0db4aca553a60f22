"""The ready-made Neo4j Browser queries of cypher/browser/ against a graph saved through the
real service: each returns exactly the memories, links and chains it promises."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, LiteralString, cast

import pytest_asyncio
from neo4j import AsyncDriver, Record

from bench.common import open_driver
from service.config import Settings
from service.core.memories import MemoryService
from tests.browser_graph import save_graph

BROWSER = Path(__file__).resolve().parents[2] / "cypher" / "browser"


@pytest_asyncio.fixture
async def driver(settings: Settings) -> AsyncIterator[AsyncDriver]:
    async with open_driver(settings.neo4j) as opened:
        yield opened


@pytest_asyncio.fixture
async def graph_namespace(memories: MemoryService, settings: Settings, namespace: str) -> str:
    await save_graph(memories, settings.neo4j, namespace)
    return namespace


async def browser_query(driver: AsyncDriver, name: str, **params: Any) -> list[Record]:
    text = cast(LiteralString, (BROWSER / f"{name}.cypher").read_text())
    records, _, _ = await driver.execute_query(text, params)
    return records


def path_keys(path: Any) -> list[str]:
    return [node["key"] for node in path.nodes]


async def test_neighbourhood_holds_every_memory_within_two_links_either_way(
    driver: AsyncDriver, graph_namespace: str
) -> None:
    rows = await browser_query(
        driver, "memory_neighbourhood", namespace=graph_namespace, key="adr-graph"
    )
    paths = sorted(path_keys(row["p"]) for row in rows)
    assert paths == [
        ["adr-graph", "adr-vectors"],
        ["adr-graph", "adr-vectors", "design-retrieval"],
        ["adr-graph", "bug-link-order"],
        ["adr-graph", "design-retrieval"],
        ["adr-graph", "design-retrieval", "adr-vectors"],
        ["adr-graph", "design-retrieval", "obs-latency"],
        ["adr-graph", "feat-timeline"],
    ]
    weights = {round(rel["weight"], 2) for row in rows for rel in row["p"].relationships}
    assert weights == {0.9, 0.8, 0.7, 0.6, 0.5, 0.3}


async def test_strongest_links_are_ordered_by_weight_times_target_score(
    driver: AsyncDriver, graph_namespace: str
) -> None:
    rows = await browser_query(driver, "strongest_links", namespace=graph_namespace)
    assert [(r["source"], r["target"], round(r["combined_score"], 4)) for r in rows] == [
        ("adr-graph", "adr-vectors", 72.0),
        ("design-retrieval", "adr-vectors", 64.0),
        ("adr-graph", "design-retrieval", 49.0),
        ("bug-link-order", "adr-graph", 45.0),
        ("feat-timeline", "adr-graph", 27.0),
        ("design-retrieval", "obs-latency", 24.0),
    ]


async def test_recent_memories_of_a_type_come_newest_first(
    driver: AsyncDriver, graph_namespace: str
) -> None:
    rows = await browser_query(
        driver, "recent_memories_of_type", namespace=graph_namespace, type="decision"
    )
    keys = list(dict.fromkeys(row["m"]["key"] for row in rows))
    assert keys == ["adr-vectors-v1", "adr-vectors-v0", "adr-graph", "adr-vectors"]


async def test_orphans_are_the_memories_without_any_link(
    driver: AsyncDriver, graph_namespace: str
) -> None:
    rows = await browser_query(driver, "orphans", namespace=graph_namespace)
    assert [(r["key"], r["type"], r["title"]) for r in rows] == [
        ("note-standup", "note", "Standup notes")
    ]


async def test_superseded_chain_runs_from_the_current_memory_to_the_first_version(
    driver: AsyncDriver, graph_namespace: str
) -> None:
    rows = await browser_query(driver, "superseded_chains", namespace=graph_namespace)
    assert [path_keys(row["p"]) for row in rows] == [
        ["adr-vectors", "adr-vectors-v1", "adr-vectors-v0"]
    ]
    old = [node for node in rows[0]["p"].nodes][1:]
    newer = [node for node in rows[0]["p"].nodes][:-1]
    assert [node["superseded_by"] for node in old] == [node["id"] for node in newer]


async def test_label_by_type_gives_each_memory_its_type_as_a_label(
    driver: AsyncDriver, graph_namespace: str
) -> None:
    await browser_query(driver, "label_by_type")
    await driver.execute_query(
        "MATCH (m:Memory {namespace: $ns, key: 'note-standup'}) SET m.type = 'log' "
        "WITH count(*) AS done "  # and one saved before storage was recorded, as 013 labels it
        "MATCH (m:Memory {namespace: $ns, key: 'obs-latency'}) SET m:UnnamedStorage",
        ns=graph_namespace,
    )
    await browser_query(driver, "label_by_type")
    records, _, _ = await driver.execute_query(
        "MATCH (m:Memory {namespace: $ns}) RETURN m.key AS key, labels(m) AS labels ORDER BY key",
        ns=graph_namespace,
    )
    own = f"NS_{graph_namespace}"  # the namespace's fulltext indexes cover it: kept
    assert {r["key"]: sorted(r["labels"]) for r in records} == {
        "adr-graph": ["Memory", own, "decision"],
        "adr-vectors": ["Memory", own, "decision"],
        "adr-vectors-v0": ["Memory", own, "decision"],
        "adr-vectors-v1": ["Memory", own, "decision"],
        "bug-link-order": ["Memory", own, "bugfix"],
        "design-retrieval": ["Memory", own, "design"],
        "feat-timeline": ["Memory", own, "feature"],
        "note-standup": ["Memory", own, "log"],
        "obs-latency": ["Memory", own, "UnnamedStorage", "observation"],
    }
