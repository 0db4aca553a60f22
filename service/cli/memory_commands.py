"""The CLI's memory commands for people and scripts: save, get, search, retrieve, timeline,
stats, cleanup, export and import. They talk to the running service over HTTP (never opening
the stores: the daemon is found, or started as `mnemograph mcp` starts it, or `--url` names a
service), print tables by default and the service's JSON with `--json`, and exit with a code
that says what happened (EXIT_CODES)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from service.paths import ClientConfig

EXIT_CODES = """exit codes of the memory commands:
  0  done
  1  the service refused the request (invalid parameter, conflict, too large, ...),
     or an import left lines out (its report is printed all the same)
  2  bad command line
  3  not found
  4  the service could not be reached or started, or a backend is down
  5  unauthorized or forbidden (check MNEMO_MCP__API_KEY or --api-key)"""

Configure = Callable[[argparse.ArgumentParser], None]


def add_commands(commands: Any) -> None:
    """Register the memory commands on the `mnemograph` sub-command parser."""
    for name, help_text, configure in COMMANDS:
        parser = commands.add_parser(
            name,
            help=help_text,
            description=help_text,
            epilog=EXIT_CODES,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        configure(parser)
        _common(parser)
        parser.set_defaults(client=_runner(name))


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the service's JSON answer")
    parser.add_argument("--url", help="the service's base URL (default: the local daemon)")
    parser.add_argument("--api-key", help="API key (default: MNEMO_MCP__API_KEY or the first key)")
    parser.add_argument("--namespace", help="another namespace (admin keys only)")


def _runner(name: str) -> Callable[[ClientConfig, argparse.Namespace], int]:
    def run(client: ClientConfig, args: argparse.Namespace) -> int:
        from service.cli import memory_views
        from service.cli.remote import Remote, ServiceError

        try:
            remote = Remote.connect(client, args.url, args.api_key)
            try:
                memory_views.run(name, remote, args)
            finally:
                remote.close()
        except ServiceError as exc:
            print(f"mnemograph: {exc.error_type}: {exc.message}", file=sys.stderr)
            return exc.exit_code
        return 0

    return run


def _save_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("content", help="the memory text, or - to read it from stdin")
    parser.add_argument("--title", default="")
    parser.add_argument("--type", default="note", help="memory type (default note)")
    parser.add_argument("--key", help="unique key (upsert by key); derived when absent")
    parser.add_argument("--summary")
    parser.add_argument("--tag", action="append", default=[], help="a tag (repeatable)")
    parser.add_argument("--score", type=float, help="importance 0-100")
    parser.add_argument("--metadata", type=json.loads, default={}, help="a JSON object")
    parser.add_argument("--session", help="the agent session it belongs to")
    parser.add_argument(
        "--link", action="append", default=[], metavar="KEY[=WEIGHT]", help="link to a key"
    )
    parser.add_argument(
        "--supersedes", action="append", default=[], metavar="REF", help="id or key it replaces"
    )


def _get_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("refs", nargs="+", metavar="REF", help="ids or keys")
    parser.add_argument("--no-sort-links", action="store_true", help="links in creation order")


def _search_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("query")
    parser.add_argument("--mode", choices=["hybrid", "bm25", "vector"], default="hybrid")
    parser.add_argument("--type", action="append", help="only this type (repeatable)")
    parser.add_argument("--tag", action="append", help="only with this tag (repeatable)")
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--offset", type=int, default=0)
    parser.add_argument("--include-superseded", action="store_true")


def _retrieve_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("query")
    parser.add_argument(
        "--mode", choices=["hybrid", "vector", "graph", "keyword", "kv"], default="hybrid"
    )
    parser.add_argument("--sort-by", choices=["timestamp", "relevance"], default="relevance")
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--max-hops", type=int, default=2)
    parser.add_argument("--include-superseded", action="store_true")


def _timeline_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ref", metavar="REF", help="the anchor's id or key")
    parser.add_argument("--window", type=int, default=5, help="memories each side (1-50)")


def _no_args(_: argparse.ArgumentParser) -> None:
    return None


def _cleanup_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--force", action="store_true", help="evict down to 85%% even if under")
    parser.add_argument("--dry-run", action="store_true", help="report, delete nothing")


def _export_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", type=Path, help="file to write (default: stdout)")


def _import_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="a JSON Lines export")


COMMANDS: Sequence[tuple[str, str, Configure]] = (
    ("save", "save a memory (upsert by key)", _save_args),
    ("get", "show memories by id or key", _get_args),
    ("search", "search memories (hybrid, bm25 or vector)", _search_args),
    ("retrieve", "retrieve context for a task", _retrieve_args),
    ("timeline", "memories around one in time", _timeline_args),
    ("stats", "size, counts and index health", _no_args),
    ("cleanup", "evict least recently used memories", _cleanup_args),
    ("export", "export the namespace as JSON Lines", _export_args),
    ("import", "import a JSON Lines export", _import_args),
)
