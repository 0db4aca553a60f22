"""The team stack under test: docker-compose.yml run by tools/stack with an env file (STACK_ENV,
default tools/stack/test.env), the URL and API keys it serves, and the compose commands."""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]
DEFAULT_ENV = REPO / "tools" / "stack" / "test.env"
READY_TIMEOUT_S = 300.0


def read_env_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines as docker-compose reads them (comments and blank lines skipped)."""
    values: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, value = line.partition("=")
            values[name.strip()] = value.strip()
    return values


@dataclass(frozen=True)
class Stack:
    """One running stack: its env file, published URL and keys by (namespace, role)."""

    env_file: Path
    values: dict[str, str]
    said: list[str] = field(default_factory=list[str])  # the scripts' timings, for the report

    @classmethod
    def from_environment(cls) -> Stack:
        path = Path(os.environ.get("STACK_ENV", DEFAULT_ENV))
        path = path if path.is_absolute() else REPO / path
        return cls(path, read_env_file(path))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.values.get('MNEMO_PORT', '8080')}"

    @property
    def keys(self) -> dict[tuple[str, str], str]:
        entries = self.values["MNEMO_AUTH__API_KEYS"].split(",")
        return {
            (namespace, role): key
            for key, namespace, role in (entry.split(":") for entry in entries)
        }

    def key(self, namespace: str, role: str) -> str:
        return self.keys[namespace, role]

    def headers(self, namespace: str, role: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key(namespace, role)}"}

    def admin_headers(self) -> dict[str, str]:
        (key,) = [key for (_, role), key in self.keys.items() if role == "admin"]
        return {"Authorization": f"Bearer {key}"}

    def script(self, name: str, *args: str, timeout_s: float = 900, **env_vars: str) -> str:
        """Run tools/stack/<name>; its standard output, or an error carrying all it said."""
        env = {**os.environ, "STACK_ENV": str(self.env_file), **env_vars}
        done = subprocess.run(
            [str(REPO / "tools" / "stack" / name), *args],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"tools/stack/{name} {' '.join(args)}: {done.stdout}{done.stderr}")
        self.said.extend(
            line
            for line in done.stderr.splitlines()
            if line.startswith(("build-images:", "stack:"))
        )
        return done.stdout

    def compose(self, *args: str, timeout_s: float = 300) -> str:
        return self.script("compose", *args, timeout_s=timeout_s)

    def up(self, build: bool = True) -> None:
        """`make stack-up`: images built (or kept), the stack started (or kept), /readyz 200."""
        self.script("up", STACK_SKIP_BUILD="0" if build else "1")

    def down(self, volumes: bool = False) -> None:
        self.script("down", *(["--volumes"] if volumes else []))

    def wait_ready(self, timeout_s: float = READY_TIMEOUT_S) -> float:
        """Seconds until /readyz answered 200 (the service, Neo4j, Qdrant and the embedder)."""
        started = time.monotonic()
        while time.monotonic() - started < timeout_s:
            try:
                if httpx.get(f"{self.url}/readyz", timeout=5).status_code == 200:
                    return time.monotonic() - started
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        raise TimeoutError(f"{self.url}/readyz not 200 in {timeout_s} s:\n{self.compose('ps')}")

    def container(self, service: str) -> str:
        """The id of the service's one container."""
        return self.compose("ps", "-q", service).split()[-1]

    def inspect(self, service: str, template: str) -> str:
        """`podman inspect --format TEMPLATE` of the service's container."""
        done = subprocess.run(
            ["podman", "inspect", "--format", template, self.container(service)],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        return done.stdout.strip()
