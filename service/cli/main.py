"""The `mnemograph` command: serve (the daemon that owns the stores), mcp (stdio bridge to it, or
`--embedded`), daemon start|stop|status, migrate, reconcile (reconcile_command.py), index, the
local Neo4j, and the memory commands (save, get, search, retrieve, timeline, stats, cleanup,
export, import) that talk to the running service.

Output for people goes to stderr; `mcp` keeps stdout for the protocol.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from service.cli.memory_commands import add_commands
from service.cli.reconcile_command import add_reconcile
from service.data_folder import lock
from service.paths import ClientConfig, client_config, early_location

if TYPE_CHECKING:
    from service.config import Settings

ClientHandler = Callable[[ClientConfig, argparse.Namespace], int]


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    client = _client_handler(args)
    if client is not None:
        return _run_client(client, args)
    owner = _owner(args)
    if owner is not None and (busy := _early_busy()) is not None:
        print(busy, file=sys.stderr)
        return lock.BUSY_EXIT
    settings = _settings()
    if settings is None:
        return 2
    try:
        if owner is None or not settings.uses_local_stores:
            return int(args.handler(settings, args) or 0)
        with lock.owning(settings.data_dir, owner, _url_of(settings, owner)):
            return int(args.handler(settings, args) or 0)
    except lock.DataFolderBusy as exc:
        print(exc, file=sys.stderr)
        return lock.BUSY_EXIT


def _run_client(client: ClientHandler, args: argparse.Namespace) -> int:
    """A command that only talks to the daemon (the memory commands, the MCP bridge): it reads
    what a client needs of the settings without building Settings (most of its start-up),
    unless they are not in a plain form."""
    from service.logs import configure_logging

    config = client_config()
    if config is None:
        settings = _settings()
        if settings is None:
            return 2
        config = settings.client()
    else:
        configure_logging(config.log_level)
    return int(client(config, args) or 0)


def _settings() -> Settings | None:
    """The settings, logging configured by them; None (said on stderr) when they are invalid."""
    from service.config import load_settings
    from service.logs import configure_logging

    try:
        settings = load_settings()
    except Exception as exc:
        print(f"Invalid configuration: {exc}", file=sys.stderr)
        return None
    configure_logging(settings.log_level)
    return settings


def _client_handler(args: argparse.Namespace) -> ClientHandler | None:
    """The handler of a command that only talks to the daemon, if this is one."""
    if getattr(args, "owner", None) == "mcp" and args.embedded:
        return None
    client: ClientHandler | None = getattr(args, "client", None)
    return client


def _owner(args: argparse.Namespace) -> str | None:
    """The name a command owns the data folder under, or None when it opens no store."""
    owner: str | None = getattr(args, "owner", None)
    if owner == "mcp":
        return "mcp --embedded" if args.embedded else None
    return owner


def _early_busy() -> str | None:
    """Before Settings (which take most of a second to import): whether another process owns
    the data folder, as one line to show."""
    early = early_location()
    holder = lock.holder(early.data_dir) if early.local_stores else None
    return None if holder is None else lock.busy_message(early.data_dir, holder)


def _url_of(settings: Settings, owner: str) -> str:
    return settings.client().url if owner == "serve" else ""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mnemograph", description="Graph-backed memory service for AI agents."
    )
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    commands.add_parser(
        "serve", help="run the daemon that owns the stores: HTTP API and MCP at /mcp"
    ).set_defaults(handler=_serve, owner="serve")
    mcp = commands.add_parser(
        "mcp", help="MCP on stdio, relayed to the daemon (started in the background if needed)"
    )
    mcp.add_argument(
        "--embedded",
        action="store_true",
        help="serve MCP in this process instead (one client; owns the data folder while it runs)",
    )
    mcp.set_defaults(handler=_mcp, client=_bridge, owner="mcp")
    daemon = commands.add_parser("daemon", help="start, stop or inspect the background daemon")
    daemon.add_argument("action", choices=["start", "stop", "status"])
    daemon.set_defaults(handler=_daemon)
    commands.add_parser("migrate", help="apply Neo4j schema migrations").set_defaults(
        handler=_migrate, owner="migrate"
    )
    add_reconcile(commands)
    commands.add_parser(
        "index", help="build the embedded Qdrant HNSW index now (service stopped)"
    ).set_defaults(handler=_index, owner="index")
    neo4j = commands.add_parser("neo4j", help="manage the local Neo4j server")
    neo4j.add_argument("action", choices=["start", "stop", "status"])
    neo4j.set_defaults(handler=_neo4j)
    add_commands(commands)
    return parser


def _serve(settings: Settings, _: argparse.Namespace) -> int:
    anonymous = not settings.auth.api_keys and not settings.auth.allow_anonymous
    if anonymous and not _is_loopback(settings.http.host):
        print(
            f"Refusing to listen on {settings.http.host} without API keys. Configure "
            "MNEMO_AUTH__API_KEYS, or set MNEMO_AUTH__ALLOW_ANONYMOUS=true.",
            file=sys.stderr,
        )
        return 2
    from service.daemon.server import serve

    return serve(settings)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _bridge(client: ClientConfig, _: argparse.Namespace) -> int:
    from service.daemon.control import bridge

    return bridge(client)


def _mcp(settings: Settings, _: argparse.Namespace) -> int:
    """`mcp --embedded`: the MCP server in this process, on stdio."""
    import asyncio

    from service.api.mcp.server import build_mcp_server
    from service.app import RuntimeRef, open_runtime

    async def run() -> None:
        ref = RuntimeRef()
        server = build_mcp_server(
            ref, settings.mcp.tool_prefix, settings.search.enabled, settings.limits
        )
        async with open_runtime(settings) as runtime:
            ref.set(runtime)
            await server.run_stdio_async()

    asyncio.run(run())
    return 0


def _daemon(settings: Settings, args: argparse.Namespace) -> int:
    from service.daemon import control

    actions = {"start": control.start, "stop": control.stop, "status": control.status}
    return actions[args.action](settings)


def _migrate(settings: Settings, _: argparse.Namespace) -> int:
    import asyncio

    from service.app import neo4j_uri
    from service.stores.cypher_library import CypherLibrary
    from service.stores.graph_store import GraphStore

    async def run() -> list[str]:
        graph = GraphStore(settings.neo4j, neo4j_uri(settings), CypherLibrary())
        try:
            return await graph.migrate()
        finally:
            await graph.close()

    applied = asyncio.run(run())
    print(f"applied: {', '.join(applied) or 'nothing (schema is up to date)'}", file=sys.stderr)
    return 0


def _index(settings: Settings, _: argparse.Namespace) -> int:
    import asyncio

    from service.app import open_runtime
    from service.stores.vector_health import SelfHealingVectorStore
    from service.stores.vector_store import EdgeVectorStore

    async def run() -> None:
        async with open_runtime(settings) as runtime:
            for name, store in (("memory", runtime.vectors), ("context", runtime.context.vectors)):
                engine = store.inner if isinstance(store, SelfHealingVectorStore) else store
                if not isinstance(engine, EdgeVectorStore):
                    print("A Qdrant server builds its own index; nothing to do.", file=sys.stderr)
                    return
                print(f"Building the HNSW index of the {name} vectors...", file=sys.stderr)
                await engine.build_index()
                status = await engine.status()
                exact = status.points - status.indexed
                note = f"; {exact} in small segments, searched exactly" if exact else ""
                print(f"indexed {status.indexed} of {status.points} vectors{note}", file=sys.stderr)

    asyncio.run(run())
    return 0


def _neo4j(settings: Settings, args: argparse.Namespace) -> int:
    from service.stores.neo4j_local import LocalNeo4j, LocalNeo4jError

    local = LocalNeo4j(settings.neo4j, settings.data_dir)
    try:
        if args.action == "start":
            status = local.start()
            print(f"Neo4j running (pid {status.pid}) at {status.bolt_uri}", file=sys.stderr)
            print(f"Neo4j Browser: {status.browser_url}", file=sys.stderr)
        elif args.action == "stop":
            stopped = local.stop()
            print("Neo4j stopped" if stopped else "Neo4j was not running", file=sys.stderr)
        else:
            status = local.status()
            state = "running" if status.running else "stopped"
            print(
                json.dumps(
                    {
                        "state": state,
                        "pid": status.pid,
                        "bolt": status.bolt_uri,
                        "browser": status.browser_url,
                        "home": str(status.home),
                    }
                )
            )
            return 0 if status.running else 3
    except LocalNeo4jError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    return 0
