"""How a client reaches the server that owns the data folder: the discovery file's daemon, else
whatever answers on the configured URL (unless it reports another folder's id), else a daemon
started here in the background."""

from __future__ import annotations

import logging
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import cast

import httpx

from service.config import Settings
from service.data_folder import discovery, folder_id, lock

log = logging.getLogger(__name__)
LOG_FILE = Path("logs") / "daemon.log"
# A log line that says why start-up failed: uvicorn's ERROR lines, an exception's last line.
_ERROR_LINE = re.compile(r"^ERROR:|\b\w*(Error|Exception|Unavailable): ")
# Beyond Neo4j's own start-up budget: imports, the embedding model, Qdrant, start-up reconcile.
START_SLACK_S = 60.0


class DaemonError(RuntimeError):
    """No server can be reached or started; `str()` is the one line to show."""


def configured_url(settings: Settings) -> str:
    """Where `serve` listens, as a client on this machine reaches it."""
    host = settings.http.host
    if host in ("0.0.0.0", "::", ""):
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{settings.http.port}"


def api_headers(settings: Settings) -> dict[str, str]:
    """The API key to send: MNEMO_MCP__API_KEY, else the first configured key, else none."""
    key = settings.mcp.api_key.get_secret_value()
    if not key and settings.auth.api_keys:
        key = settings.auth.api_keys[0].key.get_secret_value()
    return {"authorization": f"Bearer {key}"} if key else {}


def health(url: str, timeout_s: float = 1.0) -> dict[str, object] | None:
    """The `/healthz` body of the mnemograph server at `url`, or None when none answers there."""
    try:
        response = httpx.get(f"{url}/healthz", timeout=timeout_s)
        body: object = response.json()
    except (httpx.HTTPError, ValueError):
        return None
    if response.status_code != 200 or not isinstance(body, dict):
        return None
    fields = cast(dict[str, object], body)
    return fields if fields.get("status") == "ok" else None


def find_server(settings: Settings) -> str | None:
    """The base URL of a running server for these settings, or None.

    Raises `DaemonError` when the server on the configured port serves another data folder: a
    folder that has been opened before has an id, and only the server reporting it is its own.
    """
    info = discovery.running(settings.data_dir)
    if info is not None and health(info.url) is not None:
        return info.url
    url = configured_url(settings)
    body = health(url)
    if body is None:
        return None
    own, served = folder_id.read(settings.data_dir), body.get("data_folder_id")
    if own is not None and isinstance(served, str) and served != own:
        raise DaemonError(
            f"mnemograph: the server at {url} serves another data folder than "
            f"{settings.data_dir}; stop it, give this folder its own port "
            "(MNEMO_HTTP__PORT), or set MNEMO_DATA_DIR to that server's folder"
        )
    return url


def ensure_server(settings: Settings) -> str:
    """A running server's base URL: found, or started here (detached) and waited for."""
    deadline = time.monotonic() + settings.neo4j.startup_timeout_s + START_SLACK_S
    log_path = settings.data_dir / LOG_FILE
    child: subprocess.Popen[bytes] | None = None
    logged = 0
    while (url := find_server(settings)) is None:
        owner = lock.holder(settings.data_dir)
        if owner is not None and owner.command != "serve":
            raise DaemonError(lock.busy_message(settings.data_dir, owner))
        if owner is None and (child is None or child.poll() is not None):
            if child is not None and child.returncode != lock.BUSY_EXIT:
                raise DaemonError(start_failure(log_path, logged, child.returncode))
            logged = log_path.stat().st_size if log_path.exists() else 0
            child = start_daemon(settings)
        if time.monotonic() > deadline:
            raise DaemonError(
                f"mnemograph: the server did not answer in time; see {settings.data_dir / LOG_FILE}"
            )
        time.sleep(0.2)
    return url


def start_daemon(settings: Settings) -> subprocess.Popen[bytes]:
    """`mnemograph serve` in the background: its own session, output to the data folder's log."""
    log_path = settings.data_dir / LOG_FILE
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log.info("starting the mnemograph daemon (log: %s)", log_path)
    with log_path.open("ab") as output:
        return subprocess.Popen(
            [sys.executable, "-m", "service.cli", "serve"],
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def start_failure(log_path: Path, offset: int, status: int) -> str:
    """One line on a daemon that could not start: its last error line since `offset`."""
    try:
        with log_path.open("rb") as log_file:
            log_file.seek(offset)
            lines = log_file.read().decode(errors="replace").splitlines()
    except OSError:
        lines = []
    errors = [line for line in lines if _ERROR_LINE.search(line) and "startup failed" not in line]
    last = (errors or [line for line in lines if line.strip()] or [""])[-1].strip()
    reason = f": {last}" if last else ""
    return f"mnemograph: the daemon exited with status {status}{reason} (log: {log_path})"
