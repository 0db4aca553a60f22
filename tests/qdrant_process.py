"""Real Qdrant server processes for the tests: the binary from ../shared/tools/qdrant/ unpacked
once into .tools/, started standalone or as a cluster on free loopback ports, own storage."""

from __future__ import annotations

import hashlib
import lzma
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from service.stores.neo4j_local import free_port

REPO = Path(__file__).resolve().parents[1]
VERSION = "1.19.0"
ARCHIVE = REPO.parent / "shared" / "tools" / "qdrant" / f"qdrant-{VERSION}-linux-x86_64.xz"
SHA256 = "15e23707362d4a82044e0dd36a1df6b570d3332fed3ce3ab152419b3a1356ec2"
BINARY = REPO / ".tools" / "qdrant" / f"qdrant-{VERSION}"


def qdrant_binary() -> Path:
    """The unpacked server binary (unpacked and checked on first use)."""
    if BINARY.exists():
        return BINARY
    if not ARCHIVE.exists():
        raise FileNotFoundError(f"no Qdrant server archive at {ARCHIVE}")
    BINARY.parent.mkdir(parents=True, exist_ok=True)
    partial = BINARY.with_suffix(".partial")
    digest = hashlib.sha256()
    with lzma.open(ARCHIVE) as packed, partial.open("wb") as out:
        while chunk := packed.read(1 << 20):
            digest.update(chunk)
            out.write(chunk)
    if digest.hexdigest() != SHA256:
        partial.unlink()
        raise RuntimeError(f"{ARCHIVE} unpacks to an unexpected binary")
    partial.chmod(0o755)
    partial.rename(BINARY)
    return BINARY


@dataclass
class QdrantPeer:
    """One Qdrant process: standalone, or a cluster peer (first, or bootstrapped from one)."""

    folder: Path
    api_key: str = ""
    cluster: bool = False
    bootstrap: str | None = None
    http_port: int = field(default_factory=free_port)
    grpc_port: int = field(default_factory=free_port)
    p2p_port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    @property
    def p2p_uri(self) -> str:
        return f"http://127.0.0.1:{self.p2p_port}"

    def start(self, timeout_s: float = 60.0) -> QdrantPeer:
        """Start the process and wait until it answers /readyz."""
        self.folder.mkdir(parents=True, exist_ok=True)
        command = [str(qdrant_binary())]
        if self.cluster:
            command += ["--uri", self.p2p_uri]
            if self.bootstrap:
                command += ["--bootstrap", self.bootstrap]
        with (self.folder / "qdrant.log").open("ab") as log:
            self.process = subprocess.Popen(
                command, cwd=self.folder, env=self._environment(), stdout=log, stderr=log
            )
        self._wait_ready(timeout_s)
        return self

    def _environment(self) -> dict[str, str]:
        env = {
            "PATH": os.environ.get("PATH", ""),
            "QDRANT__SERVICE__HTTP_PORT": str(self.http_port),
            "QDRANT__SERVICE__GRPC_PORT": str(self.grpc_port),
            "QDRANT__CLUSTER__P2P__PORT": str(self.p2p_port),
            "QDRANT__CLUSTER__ENABLED": "true" if self.cluster else "false",
            "QDRANT__STORAGE__STORAGE_PATH": str(self.folder / "storage"),
            "QDRANT__STORAGE__SNAPSHOTS_PATH": str(self.folder / "snapshots"),
            "QDRANT__TELEMETRY_DISABLED": "true",
            "QDRANT__LOG_LEVEL": "WARN",
        }
        if self.api_key:
            env["QDRANT__SERVICE__API_KEY"] = self.api_key
        return env

    def _wait_ready(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"qdrant exited: {self.log_tail()}")
            try:
                if httpx.get(f"{self.url}/readyz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise TimeoutError(f"qdrant not ready after {timeout_s} s: {self.log_tail()}")

    def log_tail(self, lines: int = 20) -> str:
        log = self.folder / "qdrant.log"
        text = log.read_text(errors="replace") if log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def kill(self) -> None:
        """SIGKILL, as a crash."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()


def start_cluster(folder: Path, peers: int = 3, api_key: str = "") -> list[QdrantPeer]:
    """A cluster on loopback: the first peer, then the others bootstrapped from it."""
    first = QdrantPeer(folder / "peer-0", api_key=api_key, cluster=True).start()
    started = [first]
    try:
        for n in range(1, peers):
            peer = QdrantPeer(
                folder / f"peer-{n}", api_key=api_key, cluster=True, bootstrap=first.p2p_uri
            )
            started.append(peer.start())
    except BaseException:
        for peer in started:
            peer.stop()
        raise
    return started
