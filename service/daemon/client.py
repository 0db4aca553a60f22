"""How a client reaches the server that owns the data folder: the discovery file's daemon, else
whatever answers on the configured URL (unless it reports another folder's id), else a daemon
started here in the background."""

from __future__ import annotations

import http.client
import json
import logging
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import cast
from urllib.parse import urlsplit

from service.data_folder import discovery, folder_id, lock
from service.paths import ClientConfig

log = logging.getLogger(__name__)
LOG_FILE = Path("logs") / "daemon.log"
# A log line that says why start-up failed: uvicorn's ERROR lines, an exception's last line.
_ERROR_LINE = re.compile(r"^ERROR:|\b\w*(Error|Exception|Unavailable): ")
# Beyond Neo4j's own start-up budget: imports, the embedding model, Qdrant, start-up reconcile.
START_SLACK_S = 60.0


class DaemonError(RuntimeError):
    """No server can be reached or started; `str()` is the one line to show."""


def api_headers(client: ClientConfig) -> dict[str, str]:
    """The API key to send: MNEMO_MCP__API_KEY, else the first configured key, else none."""
    return {"authorization": f"Bearer {client.api_key}"} if client.api_key else {}


def get_json(url: str, timeout_s: float) -> tuple[int, object] | None:
    """GET `url` (http or https): its status and JSON body, or None when nothing answers there
    in time or the answer is not JSON. The standard library's client: a command that only asks
    the daemon something does not pay for loading a richer one."""
    parts = urlsplit(url)
    kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    connection = kind(parts.hostname or "", parts.port, timeout=timeout_s)
    try:
        connection.request("GET", target or "/")
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    except (OSError, http.client.HTTPException, ValueError):
        return None
    finally:
        connection.close()


def health(url: str, timeout_s: float = 1.0) -> dict[str, object] | None:
    """The `/healthz` body of the mnemograph server at `url`, or None when none answers there."""
    answer = get_json(f"{url}/healthz", timeout_s)
    if answer is None or answer[0] != 200 or not isinstance(answer[1], dict):
        return None
    fields = cast(dict[str, object], answer[1])
    return fields if fields.get("status") == "ok" else None


def find_server(client: ClientConfig) -> str | None:
    """The base URL of a running server for these settings, or None.

    Raises `DaemonError` when the server on the configured port serves another data folder: a
    folder that has been opened before has an id, and only the server reporting it is its own.
    """
    info = discovery.running(client.data_dir)
    if info is not None and health(info.url) is not None:
        return info.url
    url = client.url
    body = health(url)
    if body is None:
        return None
    own, served = folder_id.read(client.data_dir), body.get("data_folder_id")
    if own is not None and isinstance(served, str) and served != own:
        raise DaemonError(
            f"mnemograph: the server at {url} serves another data folder than "
            f"{client.data_dir}; stop it, give this folder its own port "
            "(MNEMO_HTTP__PORT), or set MNEMO_DATA_DIR to that server's folder"
        )
    return url


def ensure_server(client: ClientConfig) -> str:
    """A running server's base URL: found, or started here (detached) and waited for."""
    deadline = time.monotonic() + client.start_timeout_s + START_SLACK_S
    log_path = client.data_dir / LOG_FILE
    child: subprocess.Popen[bytes] | None = None
    logged = 0
    while (url := find_server(client)) is None:
        owner = lock.holder(client.data_dir)
        if owner is not None and owner.command != "serve":
            raise DaemonError(lock.busy_message(client.data_dir, owner))
        if owner is None and (child is None or child.poll() is not None):
            if child is not None and child.returncode != lock.BUSY_EXIT:
                raise DaemonError(start_failure(log_path, logged, child.returncode))
            logged = log_path.stat().st_size if log_path.exists() else 0
            child = start_daemon(client)
        if time.monotonic() > deadline:
            raise DaemonError(
                f"mnemograph: the server did not answer in time; see {client.data_dir / LOG_FILE}"
            )
        time.sleep(0.2)
    return url


def start_daemon(client: ClientConfig) -> subprocess.Popen[bytes]:
    """`mnemograph serve` in the background: its own session, output to the data folder's log."""
    log_path = client.data_dir / LOG_FILE
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
