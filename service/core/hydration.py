"""Memories as clients see them, from memory_hydrate rows (links filtered, then ordered), and
the read side's lookups: memories by id, refs (ids or keys) to ids."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from service.core.models import link_of, memory_view
from service.core.results import LinkView, MemoryView
from service.core.sorting import filter_links, sort_links
from service.stores.graph_store import GraphStore


@dataclass(frozen=True)
class LinkFilter:
    """Which links a response carries (applied before sorting)."""

    types: tuple[str, ...] = ()
    min_weight: float | None = None


def link_row(values: Sequence[Any]) -> dict[str, Any]:
    """A link as clients see it (§1), from the list memory_hydrate returns (cheaper to transfer
    than a map); it carries every field that filtering and sorting read."""
    return cast(dict[str, Any], link_of(*values))


def links_read(rows: Iterable[Sequence[Any]]) -> list[dict[str, Any]]:
    """The links of memory_hydrate's lists, less any deleted while they were read (a link
    another transaction deletes meanwhile reads without its type and weight)."""
    return [link_row(values) for values in rows if values[2] is not None and values[4] is not None]


def hydrated_rows(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """memory_hydrate's one row as a row per memory ({memory, links}), as memory_get's rows."""
    return [{"memory": memory, "links": links} for memory, links in rows[0]["memories"]]


def views_in_order(
    rows: Sequence[dict[str, Any]],
    ids: Sequence[str],
    sort: bool,
    link_filter: LinkFilter | None = None,
) -> list[MemoryView]:
    """The memories of `ids` that the rows hold, in that order (missing ones left out)."""
    flt = link_filter or LinkFilter()
    by_id: dict[str, MemoryView] = {}
    for row in rows:
        links = filter_links(links_read(row["links"]), flt.types, flt.min_weight)
        views = cast(list[LinkView], sort_links(links, sort))
        by_id[row["memory"]["id"]] = memory_view(row["memory"], views)
    return [by_id[memory_id] for memory_id in ids if memory_id in by_id]


class MemoryReader:
    """Reads memories without touching them (no access tracking): for search results, the
    timeline, anchors and refs."""

    def __init__(self, graph: GraphStore) -> None:
        self.graph = graph

    async def hydrate(
        self,
        namespace: str,
        ids: Sequence[str],
        sort: bool,
        link_filter: LinkFilter | None = None,
    ) -> dict[str, MemoryView]:
        """Full memories by id (those that exist in the namespace)."""
        rows = hydrated_rows(
            await self.graph.read("memory_hydrate", ids=list(ids), namespace=namespace)
        )
        return {view["id"]: view for view in views_in_order(rows, list(ids), sort, link_filter)}

    async def resolve(
        self, namespace: str, ids: Sequence[str] = (), keys: Sequence[str] = ()
    ) -> dict[str, str]:
        """Ref → memory id for the refs that exist in the namespace; a ref that is one memory's
        id and another's key names the one with the id (as memory_get does)."""
        rows = await self.graph.read(
            "memory_resolve_refs", ids=list(ids), keys=list(keys), namespace=namespace
        )
        resolved: dict[str, str] = {}
        for row in rows:
            ref, memory_id = row["ref"], row["id"]
            if ref not in resolved or memory_id == ref.lower():
                resolved[ref] = memory_id
        return resolved
