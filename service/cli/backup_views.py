"""The CLI's `export` and `import`: JSON Lines streamed to and from the running service with a
progress bar, written to a file only once whole, and an import that left lines out reported as
a failure."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from service.cli.remote import Remote, ServiceError

CHUNK = 1 << 20


def export_command(remote: Remote, args: argparse.Namespace) -> dict[str, Any]:
    lines = remote.download("/v1/export", {"namespace": args.namespace})
    if args.output is None:
        last = b""
        for line in lines:
            sys.stdout.buffer.write(line)
            last = line
        sys.stdout.buffer.flush()
        return {"success": True, **_end_counts(last)}
    output: Path = args.output
    partial = output.with_name(f".{output.name}.partial")
    try:
        last = _write_lines(lines, partial)
        counts = _end_counts(last)
        partial.replace(output)  # a failed export never touches an earlier file
    finally:
        partial.unlink(missing_ok=True)
    return {"success": True, "file": str(output), **counts}


def _write_lines(lines: Iterator[bytes], path: Path) -> bytes:
    """Write the lines to `path` with a progress bar; the last line."""
    from service.cli.progress_bars import bytes_progress  # the other commands do without it

    last = b""
    try:
        with bytes_progress() as bar, path.open("wb") as output:
            task = bar.add_task("exporting", total=None)
            for line in lines:
                output.write(line)
                bar.advance(task, len(line))
                last = line
    except OSError as exc:
        raise ServiceError("usage", f"Invalid output value: {exc}") from exc
    return last


def _end_counts(last: bytes) -> dict[str, Any]:
    try:
        end: dict[str, Any] = json.loads(last)
    except ValueError:
        end = {}
    if not isinstance(end, dict) or end.get("kind") != "end":  # pyright: ignore[reportUnnecessaryIsInstance]
        raise ServiceError("internal", "the export ended early (no end line)")
    return {"memories": end.get("memories"), "links": end.get("links")}


def render_export(console: Console, result: dict[str, Any]) -> None:
    where = result.get("file")
    if where is not None:
        err = Console(stderr=True)
        err.print(f"exported {result['memories']} memories, {result['links']} links to {where}")
    else:
        print(f"exported {result['memories']} memories, {result['links']} links", file=sys.stderr)


def import_command(remote: Remote, args: argparse.Namespace) -> dict[str, Any]:
    path: Path = args.file
    if not path.is_file():
        raise ServiceError("usage", f"Invalid file value: {str(path)!r} is no file")
    from service.cli.progress_bars import bytes_progress

    with bytes_progress() as bar:
        task = bar.add_task("importing", total=path.stat().st_size)
        chunks = _read(path, lambda size: bar.advance(task, size))
        return remote.upload("/v1/import", chunks, {"namespace": args.namespace})


def _read(path: Path, advance: Callable[[int], None]) -> Iterator[bytes]:
    with path.open("rb") as source:
        while chunk := source.read(CHUNK):
            advance(len(chunk))
            yield chunk


def render_import(console: Console, result: dict[str, Any]) -> None:
    memories = result["memories"]
    console.print(
        f"memories: {memories['created']} created, {memories['updated']} updated; "
        f"links: {result['links']}; superseded: {result['superseded']}; "
        f"failed lines: {result['failed']}"
    )
    if memories["remapped"]:
        console.print(
            f"{memories['remapped']} memories copied under new ids: their exported ids "
            "belong to another namespace (links and supersessions follow them)"
        )
    if result["errors"]:
        table = Table("line", "error", "message")
        for error in result["errors"]:
            table.add_row(str(error["line"]), error["error_type"], error["message"])
        console.print(table)
    if not result["complete"]:
        console.print("[yellow]the file has no end line: it may be cut short[/yellow]")


def import_shortfall(result: dict[str, Any]) -> ServiceError | None:
    """An import that left lines out is a failure for scripts, though its report is printed."""
    if result["failed"]:
        return ServiceError(
            "incomplete",
            f"{result['failed']} line{'' if result['failed'] == 1 else 's'} refused "
            "(see the report); the others are imported, "
            "and importing the file again is safe",
        )
    if not result["complete"]:
        return ServiceError("incomplete", "the file has no end line: it may be cut short")
    return None
