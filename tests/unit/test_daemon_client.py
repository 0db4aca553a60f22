"""The client helper's pure parts: where a client reaches `serve`, which key it sends, and the one
line that says why a daemon could not start."""

from __future__ import annotations

import json
from pathlib import Path

from service.config import AuthSettings, HttpSettings, McpSettings, Settings
from service.daemon import discovery, lock
from service.daemon.client import api_headers, configured_url, start_failure


def test_a_wildcard_listen_address_is_reached_on_loopback() -> None:
    def url(host: str) -> str:
        return configured_url(Settings(http=HttpSettings(host=host, port=9000)))

    assert url("0.0.0.0") == "http://127.0.0.1:9000"
    assert url("::1") == "http://[::1]:9000"
    assert url("127.0.0.1") == "http://127.0.0.1:9000"


def test_the_bridge_sends_its_own_key_else_the_first_configured_one_else_none() -> None:
    keys = AuthSettings.model_validate({"api_keys": "k1:team:writer,k2:ops:admin"})
    own = McpSettings.model_validate({"api_key": "mine"})
    assert api_headers(Settings(auth=AuthSettings(), mcp=McpSettings())) == {}
    assert api_headers(Settings(auth=keys, mcp=McpSettings())) == {"authorization": "Bearer k1"}
    assert api_headers(Settings(auth=keys, mcp=own)) == {"authorization": "Bearer mine"}


def test_a_failed_start_is_told_by_its_last_error_line_since_the_spawn(tmp_path: Path) -> None:
    log = tmp_path / "daemon.log"
    log.write_text("ERROR:    an older run's error\n")
    offset = log.stat().st_size
    with log.open("a") as output:
        output.write(
            "INFO:     Waiting for application startup.\n"
            "Traceback (most recent call last):\n"
            "service.core.errors.BackendUnavailable: neo4j is unavailable: refused\n"
            "ERROR:    Application startup failed. Exiting.\n"
        )
    assert start_failure(log, offset, 3) == (
        "mnemograph: the daemon exited with status 3: service.core.errors.BackendUnavailable: "
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
