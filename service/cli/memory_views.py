"""What the CLI's memory commands do and show: each command's call to the running service and
its rendering (rich tables for people; `--json` prints the answer as it is). Imported only when
one of these commands runs (rich takes a moment to load)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.table import Table

from service.cli.backup_views import (
    export_command,
    import_command,
    import_shortfall,
    render_export,
    render_import,
)
from service.cli.remote import Remote, ServiceError

Handler = Callable[[Remote, argparse.Namespace], dict[str, Any]]
Render = Callable[[Console, dict[str, Any]], None]


# -- save, get ----------------------------------------------------------------------------


def without_final_line_break(text: str) -> str:
    """Text piped in (`echo ... |`) less the one line break that ends it."""
    for ending in ("\r\n", "\n"):
        if text.endswith(ending):
            return text.removesuffix(ending)
    return text


def save_command(remote: Remote, args: argparse.Namespace) -> dict[str, Any]:
    content = without_final_line_break(sys.stdin.read()) if args.content == "-" else args.content
    body = {
        "content": content,
        "title": args.title,
        "type": args.type,
        "key": args.key,
        "summary": args.summary,
        "tags": args.tag,
        "score": args.score,
        "metadata": args.metadata,
        "session_id": args.session,
        "links": [_link(spec) for spec in args.link],
        "supersedes": args.supersedes,
    }
    return remote.call("POST", "/v1/memories", {"namespace": args.namespace}, body)


def _link(spec: str) -> dict[str, Any]:
    key, _, weight = spec.partition("=")
    try:
        return {"key": key, "weight": float(weight)} if weight else {"key": key}
    except ValueError:
        raise ServiceError("usage", f"Invalid --link value: {spec!r}") from None


def render_save(console: Console, result: dict[str, Any]) -> None:
    memory = result["memory"]
    verb = "created" if result["created"] else "updated"
    console.print(f"{verb} [bold]{memory['key']}[/bold] ({memory['id']})")
    if result.get("similar"):
        table = Table("similar key", "id", "score", title="near-duplicates")
        for item in result["similar"]:
            table.add_row(item["key"], item["id"], f"{item['score']:.4f}")
        console.print(table)


def get_command(remote: Remote, args: argparse.Namespace) -> dict[str, Any]:
    ids = [ref for ref in args.refs if _looks_like_id(ref)]
    keys = [ref for ref in args.refs if not _looks_like_id(ref)]
    body = {
        "ids": ids,
        "keys": keys,
        "sortLinks": not args.no_sort_links,
        "namespace": args.namespace,
    }
    result = remote.call("POST", "/v1/memories/get", body=body)
    if result["missing"] and not result["memories"]:
        raise ServiceError("not_found", f"Memory not found: {', '.join(result['missing'])}")
    return result


def _looks_like_id(ref: str) -> bool:
    parts = ref.split("-")
    return [len(p) for p in parts] == [8, 4, 4, 4, 12] and all(
        c in "0123456789abcdefABCDEF" for c in ref.replace("-", "")
    )


def render_get(console: Console, result: dict[str, Any]) -> None:
    for memory in result["memories"]:
        table = Table(show_header=False, title=memory["key"], title_justify="left")
        for name in (
            "id",
            "type",
            "title",
            "summary",
            "tags",
            "score",
            "created_at",
            "accessed_at",
            "access_count",
            "superseded_by",
        ):
            table.add_row(name, _text(memory.get(name)))
        table.add_row("content", memory["content"])
        console.print(table)
        if memory["links"]:
            links = Table("link to", "type", "weight", "combined", "term")
            for link in memory["links"]:
                links.add_row(
                    link["key"],
                    link["type"],
                    f"{link['weight']:.2f}",
                    f"{link['combined_score']:.2f}",
                    _text(link["term"]),
                )
            console.print(links)
    for ref in result["missing"]:
        console.print(f"[yellow]missing:[/yellow] {ref}")


# -- search, retrieve, timeline -----------------------------------------------------------


def search_command(remote: Remote, args: argparse.Namespace) -> dict[str, Any]:
    params = {
        "query": args.query,
        "mode": args.mode,
        "type": args.type,
        "tags": args.tag,
        "limit": args.limit,
        "offset": args.offset,
        "include_superseded": args.include_superseded,
        "namespace": args.namespace,
    }
    return remote.call("GET", "/v1/search", params)


def render_search(console: Console, result: dict[str, Any]) -> None:
    table = Table("#", "key", "type", "title", "score", "match", "created")
    for rank, item in enumerate(result["results"], start=result["offset"] + 1):
        table.add_row(
            str(rank),
            item["key"],
            item["type"],
            item["title"],
            f"{item['score']:.4f}",
            item["matchType"],
            _text(item["createdAt"]),
        )
    console.print(table)
    at_least = "at least " if result.get("total_capped") else ""
    console.print(f"{at_least}{result['total']} matches")


def retrieve_command(remote: Remote, args: argparse.Namespace) -> dict[str, Any]:
    body = {
        "query": args.query,
        "search_mode": args.mode,
        "sort_by": args.sort_by,
        "limit": args.limit,
        "max_hops": args.max_hops,
        "include_superseded": args.include_superseded,
        "namespace": args.namespace,
    }
    return remote.call("POST", "/v1/retrieve", body=body)


def render_retrieve(console: Console, result: dict[str, Any]) -> None:
    table = Table("#", "key", "type", "summary", "score", "source", "hops", "created")
    for rank, item in enumerate(result["results"], start=1):
        table.add_row(
            str(rank),
            item["key"],
            item["type"],
            item["summary"],
            f"{item['score']:.4f}",
            item["source"],
            _text(item["hop_distance"]),
            _text(item["created_at"]),
        )
    console.print(table)
    warnings: list[str] = result.get("warnings") or []
    for warning in warnings:
        console.print(f"[yellow]warning:[/yellow] {warning}")


def timeline_command(remote: Remote, args: argparse.Namespace) -> dict[str, Any]:
    path = f"/v1/memories/{args.ref}/timeline"
    return remote.call("GET", path, {"window": args.window, "namespace": args.namespace})


def render_timeline(console: Console, result: dict[str, Any]) -> None:
    table = Table("step", "key", "type", "title", "created")
    for item in result["timeline"]:
        step = {"before": "-", "after": "+"}.get(item["position"], "")
        bold = item["position"] == "anchor"
        key = f"[bold]{item['key']}[/bold]" if bold else item["key"]
        table.add_row(
            f"{step}{item['distanceFromAnchor']}",
            key,
            item["type"],
            item["title"],
            _text(item["createdAt"]),
        )
    console.print(table)


# -- stats, cleanup -----------------------------------------------------------------------


def stats_command(remote: Remote, args: argparse.Namespace) -> dict[str, Any]:
    return remote.call("GET", "/v1/stats", {"namespace": args.namespace})


def render_stats(console: Console, result: dict[str, Any]) -> None:
    table = Table(show_header=False)
    for name, value in result.items():
        if name not in ("success", "indexDetails"):
            table.add_row(name, _text(value))
    details: dict[str, Any] = result.get("indexDetails") or {}
    for name, value in details.items():
        table.add_row(f"indexDetails.{name}", _text(value))
    console.print(table)


def cleanup_command(remote: Remote, args: argparse.Namespace) -> dict[str, Any]:
    body = {"force": args.force, "dry_run": args.dry_run}
    return remote.call("POST", "/v1/cleanup", {"namespace": args.namespace}, body)


def render_cleanup(console: Console, result: dict[str, Any]) -> None:
    console.print(f"evicted {result['evictedCount']} memories, freed {result['freedBytes']} bytes")
    for memory_id in result["evictedIds"]:
        console.print(f"  {memory_id}")


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        items: list[Any] = value  # pyright: ignore[reportUnknownVariableType]
        return ", ".join(str(item) for item in items)
    return str(value)


ACTIONS: dict[str, tuple[Handler, Render]] = {
    "save": (save_command, render_save),
    "get": (get_command, render_get),
    "search": (search_command, render_search),
    "retrieve": (retrieve_command, render_retrieve),
    "timeline": (timeline_command, render_timeline),
    "stats": (stats_command, render_stats),
    "cleanup": (cleanup_command, render_cleanup),
    "export": (export_command, render_export),
    "import": (import_command, render_import),
}


def run(name: str, remote: Remote, args: argparse.Namespace) -> None:
    """Run one command and print its answer (JSON with `--json`); raise `ServiceError` when the
    answer says the work is incomplete."""
    handler, render = ACTIONS[name]
    result = handler(remote, args)
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        render(Console(soft_wrap=False, emoji=False), result)
    if name == "import" and (problem := import_shortfall(result)) is not None:
        raise problem
