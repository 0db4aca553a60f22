"""The client helper: where a client reaches `serve`, which key it sends, the one line that says
why a daemon could not start, and whether the server on the port serves this data folder."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from service.config import AuthSettings, HttpSettings, McpSettings, Settings
from service.daemon.client import (
    DaemonError,
    api_headers,
    find_server,
    start_failure,
)
from service.data_folder import discovery, folder_id, lock


def test_a_wildcard_listen_address_is_reached_on_loopback() -> None:
    def url(host: str) -> str:
        return Settings(http=HttpSettings(host=host, port=9000)).client().url

    assert url("0.0.0.0") == "http://127.0.0.1:9000"
    assert url("::1") == "http://[::1]:9000"
    assert url("127.0.0.1") == "http://127.0.0.1:9000"


def test_the_bridge_sends_its_own_key_else_the_first_configured_one_else_none() -> None:
    keys = AuthSettings.model_validate({"api_keys": "k1:team:writer,k2:ops:admin"})
    own = McpSettings.model_validate({"api_key": "mine"})

    def headers(auth: AuthSettings, mcp: McpSettings) -> dict[str, str]:
        return api_headers(Settings(auth=auth, mcp=mcp).client())

    assert headers(AuthSettings(), McpSettings()) == {}
    assert headers(keys, McpSettings()) == {"authorization": "Bearer k1"}
    assert headers(keys, own) == {"authorization": "Bearer mine"}


def test_a_failed_start_is_told_by_its_last_error_line_since_the_spawn(tmp_path: Path) -> None:
    log = tmp_path / "daemon.log"
    log.write_text("ERROR:    an older run's error\n")
    offset = log.stat().st_size
    with log.open("a") as output:
        output.write(
            "INFO:     Waiting for application startup.\n"
            "Traceback (most recent call last):\n"
            "service.errors.BackendUnavailable: neo4j is unavailable: refused\n"
            "ERROR:    Application startup failed. Exiting.\n"
        )
    assert start_failure(log, offset, 3) == (
        "mnemograph: the daemon exited with status 3: service.errors.BackendUnavailable: "
        f"neo4j is unavailable: refused (log: {log})"
    )
    assert start_failure(tmp_path / "missing.log", 0, 1) == (
        f"mnemograph: the daemon exited with status 1 (log: {tmp_path / 'missing.log'})"
    )


def test_the_discovery_file_is_withdrawn_only_by_the_process_it_names(tmp_path: Path) -> None:
    info = discovery.write(tmp_path, "http://127.0.0.1:1", 1000.0)
    assert discovery.read(tmp_path) == info
    discovery.remove(tmp_path, info.pid + 1)
    assert discovery.read(tmp_path) == info
    discovery.remove(tmp_path, info.pid)
    assert discovery.read(tmp_path) is None
    (tmp_path / discovery.DISCOVERY_FILE).write_text(json.dumps({"pid": "x"}))
    assert discovery.read(tmp_path) is None


def test_a_published_daemon_counts_only_while_its_pid_owns_the_data_folder(
    tmp_path: Path,
) -> None:
    info = discovery.write(tmp_path, "http://127.0.0.1:1", 1000.0)  # this process's pid
    assert discovery.running(tmp_path) is None  # alive, but not the owner: a reused pid
    with lock.owning(tmp_path, "serve"):
        assert discovery.running(tmp_path) == info
        (tmp_path / discovery.DISCOVERY_FILE).write_text(
            json.dumps({"pid": 1, "url": info.url, "started_at": 1000.0})
        )
        assert discovery.running(tmp_path) is None  # pid 1 runs, but owns no folder
    assert discovery.running(tmp_path) is None


class _Health(BaseHTTPRequestHandler):
    """A server on loopback that answers `/healthz` as `serve` does, for the folder id it holds."""

    served_id: str | None = None

    def do_GET(self) -> None:
        body = json.dumps({"success": True, "status": "ok", "data_folder_id": self.served_id})
        self.send_response(200 if self.path == "/healthz" else 404)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture
def health_server() -> Iterator[tuple[type[_Health], int]]:
    handler = type("Health", (_Health,), {})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield handler, server.server_address[1]
    server.shutdown()
    server.server_close()


def test_an_owner_gives_the_folder_one_id_that_stays(tmp_path: Path) -> None:
    assert folder_id.read(tmp_path) is None
    with lock.owning(tmp_path, "reconcile"):
        first = folder_id.read(tmp_path)
    with lock.owning(tmp_path, "serve"):
        assert folder_id.read(tmp_path) == first
    assert first is not None and str(uuid.UUID(first)) == first


def test_the_server_on_the_port_is_used_only_when_it_serves_this_folder(
    tmp_path: Path, health_server: tuple[type[_Health], int]
) -> None:
    handler, port = health_server
    settings = Settings(data_dir=tmp_path, http=HttpSettings(host="127.0.0.1", port=port)).client()
    url = f"http://127.0.0.1:{port}"
    handler.served_id = "another-folder"
    assert find_server(settings) == url  # a folder never opened follows any server (Docker)
    with lock.owning(tmp_path, "reconcile"):
        own = folder_id.read(tmp_path)
    with pytest.raises(DaemonError) as refused:
        find_server(settings)
    assert str(refused.value) == (
        f"mnemograph: the server at {url} serves another data folder than {tmp_path}; stop it, "
        "give this folder its own port (MNEMO_HTTP__PORT), or set MNEMO_DATA_DIR to that "
        "server's folder"
    )
    handler.served_id = own
    assert find_server(settings) == url
    handler.served_id = None  # a server that reports no folder
    assert find_server(settings) == url
