"""The commands around the daemon: `mcp` (the stdio bridge) and `daemon start|stop|status`.
Messages for people go to stderr in one line; `status` prints JSON on stdout."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import time
from typing import TYPE_CHECKING, Any, cast

from service.daemon.bridge import Bridge
from service.daemon.client import LOG_FILE, DaemonError, api_headers, ensure_server, get_json
from service.data_folder import discovery, lock
from service.paths import ClientConfig
from service.processes import alive

if TYPE_CHECKING:
    from service.config import Settings

STOPPED_EXIT = 3


def bridge(client: ClientConfig) -> int:
    """Relay MCP between stdio and the server that owns the data folder (started if needed)."""
    try:
        url = ensure_server(client)
        relay = Bridge(
            url,
            api_headers(client),
            lambda: ensure_server(client),
            sys.stdin.buffer,
            sys.stdout.buffer,
        )
        asyncio.run(relay.run())
    except DaemonError as exc:
        print(exc, file=sys.stderr)
        return 1
    except (KeyboardInterrupt, BrokenPipeError):
        return 0
    return 0


def start(settings: Settings) -> int:
    running = discovery.running(settings.data_dir)
    try:
        url = ensure_server(settings.client())
    except DaemonError as exc:
        print(exc, file=sys.stderr)
        return 1
    info = discovery.running(settings.data_dir)
    already = running is not None and info is not None and running.pid == info.pid
    pid = f"pid {info.pid}, " if info is not None else ""
    state = "already running" if already else "started"
    print(
        f"mnemograph daemon {state} ({pid}{url}); data folder {settings.data_dir}; "
        f"log {settings.data_dir / LOG_FILE}",
        file=sys.stderr,
    )
    return 0


def stop(settings: Settings, timeout_s: float = 60.0) -> int:
    """SIGTERM the daemon and wait until it has released the data folder (stores closed)."""
    pid = _daemon_pid(settings)
    if pid is None:
        print("mnemograph daemon is not running", file=sys.stderr)
        return 0
    os.kill(pid, signal.SIGTERM)
    started = time.monotonic()
    while holds_folder(settings, pid) and time.monotonic() - started < timeout_s:
        time.sleep(0.1)
    if holds_folder(settings, pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        print(
            f"mnemograph daemon (pid {pid}) did not stop in {timeout_s:.0f} s and was killed; "
            "the next start reconciles the stores",
            file=sys.stderr,
        )
        return 1
    elapsed = time.monotonic() - started
    print(f"mnemograph daemon stopped (pid {pid}) in {elapsed:.1f} s", file=sys.stderr)
    return 0


def holds_folder(settings: Settings, pid: int) -> bool:
    """Whether the daemon `pid` still runs or still locks its data folder: a process whose
    main thread has exited reads as a zombie while its other threads still close the stores and
    hold the folder's lock."""
    owner = lock.holder(settings.data_dir)
    return alive(pid) or (owner is not None and owner.pid == pid)


def status(settings: Settings) -> int:
    """JSON on stdout: state, pid, URL, uptime, data folder, readiness and Neo4j."""
    info = discovery.running(settings.data_dir)
    owner = lock.holder(settings.data_dir)
    body: dict[str, Any] = {"state": "stopped", "data_dir": str(settings.data_dir)}
    if info is not None:
        body.update(state="running", pid=info.pid, url=info.url, uptime_s=round(info.uptime_s))
        body["checks"] = _readiness(info.url)
    elif owner is not None:
        body.update(state="starting" if owner.command == "serve" else "busy")
        body.update(pid=owner.pid, command=owner.command, url=owner.url)
    body["neo4j"] = _neo4j(settings, body.get("checks", {}))
    print(json.dumps(body))
    return 0 if body["state"] == "running" else STOPPED_EXIT


def _daemon_pid(settings: Settings) -> int | None:
    info = discovery.running(settings.data_dir)
    if info is not None:
        return info.pid
    owner = lock.holder(settings.data_dir)
    if owner is not None and owner.command == "serve":
        return owner.pid
    return None


def _readiness(url: str) -> dict[str, Any]:
    answer = get_json(f"{url}/readyz", timeout_s=10)
    if answer is None:
        return {"error": "unreachable"}
    body = answer[1]
    checks = cast(dict[str, Any], body).get("checks") if isinstance(body, dict) else None
    return cast(dict[str, Any], checks) if isinstance(checks, dict) else {}


def _neo4j(settings: Settings, checks: dict[str, Any]) -> dict[str, Any]:
    """Where Neo4j is and whether it answers (the daemon's check, else the local server's state)."""
    check = checks.get("neo4j", {})
    if settings.neo4j.uri:
        return {"uri": settings.neo4j.uri, "status": check.get("status", "unknown")}
    from service.stores.neo4j_local import LocalNeo4j

    local = LocalNeo4j(settings.neo4j, settings.data_dir).status()
    return {
        "uri": local.bolt_uri,
        "local": True,
        "pid": local.pid,
        "status": check.get("status", "running" if local.running else "stopped"),
        "home": str(local.home),
    }
