"""Helpers of the tests of the link graph snapshots and the views held between reads: wait for
a namespace's snapshot, and see which memories a graph store hydrates."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from service.stores.graph_store import GraphStore
from service.stores.link_graph import LinkGraph


async def up_to_date(graph: GraphStore, namespace: str) -> LinkGraph:
    """The namespace's snapshot, once loaded at its current version (loads wait their pause)."""
    for _ in range(200):
        found = await graph.link_graph(namespace)
        if found is not None:
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"no up-to-date link graph of {namespace} after 10 s")


def hydrations(graph: GraphStore, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The ids of every memory_hydrate the graph store reads from now on, in order."""
    read = graph.read
    seen: list[list[str]] = []

    async def counted(query: str, /, **params: Any) -> list[dict[str, Any]]:
        if query == "memory_hydrate":
            seen.append(sorted(params["ids"]))
        return await read(query, **params)

    monkeypatch.setattr(graph, "read", counted)
    return seen
