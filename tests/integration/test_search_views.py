"""memory_search and memory_fulltext_search hold the views they read between calls, as
retrieve_context does (service/core/read/view_cache.py): at an unchanged graph version a search
reads no view an earlier one read; after a write, of this process or of another, it shows what
Neo4j holds; a vector search, which reads no graph version, reads its views every time."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from service.core.memories import MemoryService
from service.core.models import SaveInput, UpdateInput
from service.core.read.retrieval import Retrieval
from service.core.search_inputs import FulltextInput, SearchInput
from service.filters import MemoryFilters
from service.stores.graph_store import GraphStore
from tests.integration.link_graphs import hydrations, up_to_date

Search = Callable[[Retrieval, str, int], Awaitable[Any]]
SEARCHES: dict[str, Search] = {
    "bm25": lambda r, ns, limit: r.search(
        ns, SearchInput(query="kestrel sighting", mode="bm25", limit=limit)
    ),
    "hybrid": lambda r, ns, limit: r.search(ns, SearchInput(query="kestrel sighting", limit=limit)),
    "vector": lambda r, ns, limit: r.search(
        ns, SearchInput(query="kestrel sighting", mode="vector", limit=limit)
    ),
    "fulltext": lambda r, ns, limit: r.fulltext(
        ns, FulltextInput(keywords=["kestrel"], limit=limit)
    ),
}
PLACES = ("river", "quarry", "orchard", "ridge", "harbour", "meadow", "station", "bridge")


async def saved(memories: MemoryService, namespace: str) -> None:
    """Eight kestrel sightings in a chain of links, and two memories about something else."""
    for i, place in enumerate(PLACES):
        links: Any = [{"key": f"sighting-{i - 1}", "weight": 0.5}] if i else []
        content = f"kestrel sighting {i} near the {place}"
        await memories.save(namespace, SaveInput(content=content, key=f"sighting-{i}", links=links))
    for key in ("budget", "roadmap"):
        await memories.save(namespace, SaveInput(content=f"the {key} for next year", key=key))


def read_ids(seen: list[list[str]]) -> list[str]:
    return sorted(memory_id for ids in seen for memory_id in ids)


@pytest.mark.parametrize("search", SEARCHES)
async def test_a_search_at_an_unchanged_graph_version_reads_no_view_an_earlier_one_read(
    memories: MemoryService,
    graph: GraphStore,
    retrieval: Retrieval,
    namespace: str,
    search: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Except a vector search, which reads no graph version: it reads its views every time."""
    await saved(memories, namespace)
    await up_to_date(graph, namespace)
    seen = hydrations(graph, monkeypatch)
    first = await SEARCHES[search](retrieval, namespace, 5)
    shown = sorted(item["id"] for item in first["results"])
    assert (read_ids(seen), len(shown)) == (shown, 5)
    seen.clear()
    again = await SEARCHES[search](retrieval, namespace, 5)
    assert (again, seen) == (first, [shown] if search == "vector" else [])


@pytest.mark.parametrize("writer", ["this process", "another process"])
@pytest.mark.parametrize("search", SEARCHES)
async def test_after_a_write_a_search_shows_what_neo4j_holds_not_the_views_held(
    memories: MemoryService,
    elsewhere: MemoryService,
    graph: GraphStore,
    retrieval: Retrieval,
    namespace: str,
    search: str,
    writer: str,
) -> None:
    await saved(memories, namespace)
    await up_to_date(graph, namespace)
    first = await SEARCHES[search](retrieval, namespace, 10)  # every sighting
    assert len(first["results"]) == len(PLACES)
    shown = next(item for item in first["results"] if item["key"] == "sighting-3")
    writing = memories if writer == "this process" else elsewhere
    await writing.update(namespace, "sighting-3", UpdateInput(summary="seen again at dusk"))
    found = await SEARCHES[search](retrieval, namespace, 10)
    summaries = {item["key"]: item["summary"] for item in found["results"]}
    assert (shown["summary"], summaries["sighting-3"]) == (
        "kestrel sighting 3 near the ridge",
        "seen again at dusk",
    )
    links_to_it = [  # its view's summary in the view of the memory that links to it
        link["summary"] for item in found["results"] for link in item["links"]
        if link["key"] == "sighting-3"
    ]  # fmt: skip
    assert links_to_it == ["seen again at dusk"]


async def test_the_keyword_statement_carries_the_graph_version_row_when_asked(
    memories: MemoryService, graph: GraphStore, namespace: str
) -> None:
    await saved(memories, namespace)
    params: dict[str, Any] = {
        "namespace": namespace, "lucene": "kestrel", "fetch": 200, "skip": 0, "limit": 5,
        "beyond": False, **MemoryFilters().cypher(),
    }  # fmt: skip
    version = (await graph.read("graph_version", namespace=namespace))[0]
    asked = (await graph.read("search_fulltext", graph_version=True, **params))[0]
    assert (asked["graph"], asked["matched"]) == (version, len(PLACES))
    assert version["memories"] == len(PLACES) + 2 and version["version"] != ""
    assert (await graph.read("search_fulltext", graph_version=False, **params))[0]["graph"] is None
