"""How a client reaches the server that owns the data folder: the discovery file's daemon, else
whatever answers on the configured URL, else a daemon started here in the background."""

from __future__ import annotations

import logging
import subprocess
import sys
import time
from pathlib import Path

import httpx

from service.config import Settings
from service.daemon import discovery, lock

log = logging.getLogger(__name__)
LOG_FILE = Path("logs") / "daemon.log"
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


def answers(url: str, timeout_s: float = 1.0) -> bool:
    """A mnemograph server answers `/healthz` at `url`."""
    try:
        response = httpx.get(f"{url}/healthz", timeout=timeout_s)
        return response.status_code == 200 and response.json().get("status") == "ok"
    except (httpx.HTTPError, ValueError):
        return False


def find_server(settings: Settings) -> str | None:
    """The base URL of a running server for these settings, or None."""
    info = discovery.read(settings.data_dir)
    if info is not None and discovery.alive(info.pid) and answers(info.url):
        return info.url
    url = configured_url(settings)
    return url if answers(url) else None


def ensure_server(settings: Settings) -> str:
    """A running server's base URL: found, or started here (detached) and waited for."""
    deadline = time.monotonic() + settings.neo4j.startup_timeout_s + START_SLACK_S
    child: subprocess.Popen[bytes] | None = None
    while (url := find_server(settings)) is None:
        owner = lock.holder(settings.data_dir)
        if owner is not None and owner.command != "serve":
            raise DaemonError(lock.busy_message(settings.data_dir, owner))
        if owner is None and (child is None or child.poll() is not None):
            if child is not None and child.returncode != lock.BUSY_EXIT:
                raise DaemonError(_failed(settings.data_dir, child.returncode))
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


def _failed(data_dir: Path, status: int) -> str:
    log_path = data_dir / LOG_FILE
    try:
        lines = [line for line in log_path.read_text(errors="replace").splitlines() if line]
    except OSError:
        lines = []
    last = f": {lines[-1].strip()}" if lines else ""
    return f"mnemograph: the daemon exited with status {status}{last} (log: {log_path})"
