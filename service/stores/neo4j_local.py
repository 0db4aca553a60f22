"""The local Neo4j server the project runs itself: Maven build, start, stop and status.

Neo4j Community comes from Maven Central through `tools/neo4j` (bundled in the wheel); data lives
under the data folder.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from service.config import Neo4jSettings
from service.processes import alive
from service.resources import resource_dir

PROJECT_DIR = resource_dir("neo4j")
MAIN_CLASS = "dev.mnemograph.neo4j.LocalNeo4j"
BUILD_STAMP = "build.stamp"


class LocalNeo4jError(RuntimeError):
    """The local Neo4j could not be built, started or stopped."""


@dataclass(frozen=True)
class LocalNeo4jStatus:
    running: bool
    pid: int | None
    bolt_uri: str
    browser_url: str
    home: Path


class LocalNeo4j:
    """One local Neo4j server under `<data_dir>/neo4j`, with a pid file and bounded heap."""

    def __init__(self, settings: Neo4jSettings, data_dir: Path) -> None:
        self.settings = settings
        self.home = (data_dir / "neo4j").resolve()
        self.pid_file = self.home / "neo4j.pid"
        self.console_log = self.home / "logs" / "console.log"

    @property
    def bolt_uri(self) -> str:
        return f"bolt://127.0.0.1:{self.settings.bolt_port}"

    @property
    def browser_url(self) -> str:
        return f"http://127.0.0.1:{self.settings.http_port}/browser/"

    def status(self) -> LocalNeo4jStatus:
        pid = self._live_pid()
        return LocalNeo4jStatus(
            running=pid is not None and _port_open(self.settings.bolt_port),
            pid=pid,
            bolt_uri=self.bolt_uri,
            browser_url=self.browser_url,
            home=self.home,
        )

    def build(self) -> Path:
        """Resolve Neo4j from Maven Central and compile the launcher, once per pom change."""
        target = PROJECT_DIR / "target"
        stamp = target / BUILD_STAMP
        digest = _sources_digest()
        if stamp.exists() and stamp.read_text() == digest and (target / "lib").is_dir():
            return target
        mvn = shutil.which("mvn")
        if mvn is None:
            raise LocalNeo4jError("Maven (mvn) is not installed; it is needed to fetch Neo4j")
        print("Resolving Neo4j from Maven Central (first run only)...", file=sys.stderr)
        done = subprocess.run(
            [mvn, "-B", "-q", "-f", str(PROJECT_DIR / "pom.xml"), "package", "-DskipTests"],
            stdout=sys.stderr,
            stderr=sys.stderr,
            check=False,
        )
        if done.returncode != 0:
            raise LocalNeo4jError(f"Maven build of {PROJECT_DIR} failed (exit {done.returncode})")
        stamp.write_text(digest)
        return target

    def start(self, timeout_s: float | None = None) -> LocalNeo4jStatus:
        """Start the server unless it runs already; wait until Bolt answers."""
        current = self.status()
        if current.running:
            return current
        if current.pid is not None:
            raise LocalNeo4jError(f"Neo4j (pid {current.pid}) is running but Bolt is not open")
        if _port_open(self.settings.bolt_port):
            raise LocalNeo4jError(
                f"port {self.settings.bolt_port} is taken by another process; "
                "set MNEMO_NEO4J__BOLT_PORT or MNEMO_NEO4J__URI"
            )
        target = self.build()
        java = shutil.which("java")
        if java is None:
            raise LocalNeo4jError("Java 17+ is not installed; it is needed to run Neo4j")
        self.console_log.parent.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ)
        env.pop("NEO4J_PASSWORD", None)
        password = self.settings.password.get_secret_value()
        if password:
            env["NEO4J_PASSWORD"] = password
        with self.console_log.open("ab") as log_file:
            process = subprocess.Popen(
                [
                    java,
                    f"-Xmx{self.settings.heap}",
                    "-Xms256m",
                    "-XX:+UseG1GC",
                    "-cp",
                    f"{target / 'classes'}{os.pathsep}{target / 'lib'}/*",
                    MAIN_CLASS,
                    str(self.home),
                    *self._server_settings(),
                ],
                stdout=log_file,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                start_new_session=True,
            )
        self.pid_file.write_text(str(process.pid))
        deadline = time.monotonic() + (timeout_s or self.settings.startup_timeout_s)
        while time.monotonic() < deadline:
            if process.poll() is not None:
                self.pid_file.unlink(missing_ok=True)
                raise LocalNeo4jError(
                    f"Neo4j exited with status {process.returncode}; see {self.console_log}"
                )
            if _port_open(self.settings.bolt_port) and _port_open(self.settings.http_port):
                return self.status()
            time.sleep(0.25)
        self.stop()
        raise LocalNeo4jError(f"Neo4j did not open Bolt in time; see {self.console_log}")

    def stop(self, timeout_s: float = 60.0) -> bool:
        """Stop cleanly (SIGTERM, then SIGKILL after `timeout_s`); false if it was not running."""
        pid = self._live_pid()
        if pid is None:
            self.pid_file.unlink(missing_ok=True)
            return False
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and alive(pid):
            time.sleep(0.2)
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
        self.pid_file.unlink(missing_ok=True)
        return True

    def _live_pid(self) -> int | None:
        try:
            pid = int(self.pid_file.read_text().strip())
        except (FileNotFoundError, ValueError):
            return None
        return pid if alive(pid) else None

    def _server_settings(self) -> list[str]:
        bolt = f"127.0.0.1:{self.settings.bolt_port}"
        http = f"127.0.0.1:{self.settings.http_port}"
        return [
            "server.default_listen_address=127.0.0.1",
            "server.default_advertised_address=127.0.0.1",
            f"server.bolt.listen_address={bolt}",
            f"server.bolt.advertised_address={bolt}",
            "server.http.enabled=true",
            f"server.http.listen_address={http}",
            f"server.http.advertised_address={http}",
            "server.https.enabled=false",
            "server.memory.pagecache.size=256m",
            "dbms.usage_report.enabled=false",
            "db.logs.query.enabled=INFO",
            "db.logs.query.threshold=500ms",
            # No keep-alive, so no receive-timeout hint: with one, the driver runs every socket
            # read as a task under a timer (1.3 of 4.5 ms of client CPU per hydration measured,
            # docs/performance.md). On loopback a dead server closes the socket, and every
            # request carries its own deadline.
            "server.bolt.connection_keep_alive_for_requests=OFF",
        ]


def _port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _sources_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted([PROJECT_DIR / "pom.xml", *PROJECT_DIR.glob("src/**/*.java")]):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
