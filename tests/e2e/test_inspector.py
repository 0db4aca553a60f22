"""The official MCP Inspector CLI (pinned in tools/inspector, `make inspector`) as a third-party
client: over stdio (`mnemograph mcp` from another folder) and over streamable HTTP (/mcp), it
lists the tools, its strict mode finds no portability problem we own, and it calls every tool."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from service.api.tools import TOOLS
from service.config import Settings
from tests.e2e.conftest import REPO
from tests.e2e.test_daemon import Daemon
from tests.e2e.test_mcp_client_snippets import start_daemon

INSPECTOR = REPO / "tools" / "inspector" / "node_modules" / ".bin" / "mcp-inspector"
TRANSPORTS = ["stdio", "http"]
# sortLinks is typed boolean | string | null; its schema becomes one type in the typed-schemas
# work, and then this set is empty.
PROBLEM = re.compile(r'^(Warning|Error): tool "([^"]+)"\n  Path: (\S+)$', re.MULTILINE)
TALLY = re.compile(r"^(\d+) errors?, (\d+) warnings? across", re.MULTILINE)


@dataclass(frozen=True)
class Inspector:
    """`mcp-inspector --cli` against one transport of the test daemon."""

    daemon: Daemon
    transport: str
    cwd: Path

    def target(self) -> list[str]:
        if self.transport == "http":
            return [f"{self.daemon.url}/mcp"]
        # The Inspector refuses `-e NAME=` with an empty value; an unset setting reads the same.
        mnemo = {k: v for k, v in self.daemon.env.items() if k.startswith("MNEMO_") and v}
        env = [("-e", f"{k}={v}") for k, v in mnemo.items()]
        bridge = str(Path(sys.executable).parent / "mnemograph")
        return [*(part for pair in env for part in pair), "--cwd", str(self.cwd), bridge, "mcp"]

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        assert INSPECTOR.exists(), "the MCP Inspector is not installed: run `make inspector`"
        command = [str(INSPECTOR), "--cli", *self.target(), *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)

    def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """The tool's structured result; the Inspector printed no warning and it is no error."""
        pairs = [f"{k}={v if isinstance(v, str) else json.dumps(v)}" for k, v in arguments.items()]
        done = self.run("--method", "tools/call", "--tool-name", tool, "--tool-arg", *pairs)
        assert (done.returncode, done.stderr) == (0, ""), done.stderr
        result = json.loads(done.stdout)
        assert result["isError"] is False, result
        assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
        return result["structuredContent"]


@pytest.fixture(scope="module")
def daemon(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    yield from start_daemon(settings, tmp_path_factory.mktemp("inspector"))


@pytest.fixture(params=TRANSPORTS)
def inspector(request: pytest.FixtureRequest, daemon: Daemon, tmp_path: Path) -> Inspector:
    return Inspector(daemon, request.param, tmp_path)


def test_the_inspector_lists_every_tool(inspector: Inspector) -> None:
    done = inspector.run("--method", "tools/list")
    assert done.returncode == 0, done.stderr
    assert sorted(tool["name"] for tool in json.loads(done.stdout)["tools"]) == sorted(TOOLS)


def test_the_inspectors_strict_mode_reports_no_error_and_no_warning(
    inspector: Inspector,
) -> None:
    done = inspector.run("--method", "tools/list", "--strict")
    tally = TALLY.search(done.stderr)
    assert (done.returncode, PROBLEM.findall(done.stderr)) == (0, []), done.stderr
    assert tally is None or tally.groups() == ("0", "0"), done.stderr


def test_the_inspector_calls_every_tool(inspector: Inspector) -> None:
    ns = f"inspector-{inspector.transport}-{uuid.uuid4().hex[:8]}"
    lamps = "Inspector notes: the walkway lamps were replaced in May."
    panels = "Inspector notes: the new lamps use LED panels."
    first = inspector.call("memory_save", content=lamps, key="insp-a", tags=["lamps"], namespace=ns)
    second = inspector.call("memory_save", content=panels, key="insp-b", namespace=ns)
    assert (first["created"], first["memory"]["key"], first["memory"]["tags"]) == (
        True,
        "insp-a",
        ["lamps"],
    )
    link = inspector.call(
        "memory_link", **{"from": "insp-a", "to": "insp-b"}, weight=0.8, namespace=ns
    )
    assert (link["link"]["key"], link["link"]["weight"]) == ("insp-b", 0.8)
    got = inspector.call("memory_get", keys=["insp-a"], sortLinks=True, namespace=ns)
    assert [(m["key"], [lk["key"] for lk in m["links"]]) for m in got["memories"]] == [
        ("insp-a", ["insp-b"])
    ]
    searched = inspector.call("memory_search", query="walkway lamps", mode="bm25", namespace=ns)
    assert [r["key"] for r in searched["results"]] == ["insp-a", "insp-b"]
    fulltext = inspector.call("memory_fulltext_search", keywords=["walkway"], namespace=ns)
    assert [r["key"] for r in fulltext["results"]] == ["insp-a"]
    context = inspector.call(
        "retrieve_context", query="When were the walkway lamps replaced?", limit=2, namespace=ns
    )
    found = {r["key"]: (r["hop_distance"], r["path"]) for r in context["results"]}
    assert found == {"insp-a": (None, None), "insp-b": (1, ["insp-a", "insp-b"])}
    timeline = inspector.call("memory_timeline", memoryId="insp-b", window=1, namespace=ns)
    assert timeline["anchor"] == second["memory"]["id"]
    assert [t["key"] for t in timeline["timeline"]] == ["insp-a", "insp-b"]
    stats = inspector.call("memory_stats", namespace=ns)
    assert (stats["memoryCount"], stats["linkCount"]) == (2, 1)
    cleanup = inspector.call("memory_cleanup", dry_run=True, namespace=ns)
    assert (cleanup["evictedCount"], cleanup["evictedIds"]) == (0, [])
    deleted = inspector.call("memory_delete", keys=["insp-a", "insp-b"], namespace=ns)
    assert (deleted["deleted"], deleted["missing"]) == (2, [])
