"""The one table of tools: each tool's HTTP twin (method and path), the list fields its failure
envelope carries empty, its description for models and people, and its MCP behaviour hints."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mcp_types import ToolAnnotations


@dataclass(frozen=True)
class ToolSpec:
    """One tool of docs/contract.md §4 and its HTTP twin of §6."""

    name: str
    method: str
    path: str
    description: str
    list_fields: tuple[str, ...] = ()
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False
    search: bool = False  # registered only when search.enabled (seed 002)

    def annotations(self) -> ToolAnnotations:
        return ToolAnnotations(
            read_only_hint=self.read_only,
            destructive_hint=self.destructive if not self.read_only else None,
            idempotent_hint=self.idempotent if not self.read_only else None,
        )


TOOLS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        ToolSpec(
            "memory_save",
            "POST",
            "/v1/memories",
            "Save a memory (upsert by key). It is vectorised and indexed before this returns, "
            "so the next search finds it.",
            idempotent=True,
        ),
        ToolSpec(
            "memory_get",
            "POST",
            "/v1/memories/get",
            "Fetch full memories (content, metadata, links) by ids or keys; unknown ones are "
            "listed in `missing`. Updates access time and count.",
            list_fields=("memories", "missing"),
            read_only=True,
        ),
        ToolSpec(
            "memory_link",
            "PUT",
            "/v1/memories/{ref}/links/{target}",
            "Create or update (weight, term) a weighted link between two memories, or remove it.",
            idempotent=True,
        ),
        ToolSpec(
            "memory_delete",
            "DELETE",
            "/v1/memories/{ref}",
            "Delete memories with their links and vectors; unknown ones are listed in `missing`.",
            list_fields=("missing",),
            destructive=True,
            idempotent=True,
        ),
        ToolSpec(
            "memory_search",
            "GET",
            "/v1/search",
            "Search memories by meaning and words: hybrid (BM25 + vector fused by reciprocal "
            "rank, k=60), bm25 or vector; paged, with `total` before paging (a lower bound when "
            "`total_capped`).",
            list_fields=("results",),
            read_only=True,
            search=True,
        ),
        ToolSpec(
            "memory_fulltext_search",
            "GET",
            "/v1/fulltext",
            "Full-text search for keywords (AND or OR) with highlighted excerpts (`<mark>` "
            "around each matched term); paged, with `total` (a lower bound when `total_capped`).",
            list_fields=("results",),
            read_only=True,
            search=True,
        ),
        ToolSpec(
            "retrieve_context",
            "POST",
            "/v1/retrieve",
            "Recall context for the current task: fuses vector similarity, keyword (BM25), "
            "exact key matches and memories linked to the best hits (graph, hop factor "
            "1/(hops+0.5)) into one relevance, keeps the `limit` best, then orders them by "
            "`sort_by`.",
            list_fields=("results",),
            read_only=True,
        ),
        ToolSpec(
            "memory_timeline",
            "GET",
            "/v1/memories/{ref}/timeline",
            "Chronological context around one memory (id or key): up to `window` memories "
            "saved before it and `window` after it, oldest first, each with `position` "
            "(before, anchor, after) and `distanceFromAnchor` in steps.",
            list_fields=("timeline",),
            read_only=True,
        ),
        ToolSpec(
            "memory_stats",
            "GET",
            "/v1/stats",
            "Size and health of the memory store: logical size against the budget, counts of "
            "memories, links and sessions, oldest and newest memory, and index health.",
            read_only=True,
        ),
        ToolSpec(
            "memory_cleanup",
            "POST",
            "/v1/cleanup",
            "Evict least recently used memories (protected types never) down to 85% of the "
            "size budget: when over it, or always with `force`; `dry_run` only reports.",
            list_fields=("evictedIds",),
            destructive=True,
        ),
    )
}


# HTTP-only routes (no tool twin) whose failure envelope carries list fields empty.
BATCH_PATH = "/v1/memories/batch"
EXPORT_PATH = "/v1/export"
IMPORT_PATH = "/v1/import"
HTTP_LIST_FIELDS: dict[str, tuple[str, ...]] = {BATCH_PATH: ("results",), IMPORT_PATH: ("errors",)}


def list_fields_for_path(path: str, method: str) -> tuple[str, ...]:
    """The list fields of the tool whose HTTP twin serves `path`, or of an HTTP-only route
    (for error envelopes). A route with a `{ref}` in it counts only for its own method:
    `DELETE /v1/memories/x` is memory_delete, `GET /v1/memories/x` is not."""
    for spec in TOOLS.values():
        if not spec.list_fields:
            continue
        if "{" not in spec.path and path == spec.path:
            return spec.list_fields
        if method == spec.method and _template(spec.path).fullmatch(path):
            return spec.list_fields
    return HTTP_LIST_FIELDS.get(path, ())


def _template(path: str) -> re.Pattern[str]:
    """A route's path with each `{name}` standing for one path segment."""
    return re.compile(re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(path)))
