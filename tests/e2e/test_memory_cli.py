"""The CLI's memory commands as people and scripts run them: real `mnemograph` processes talking
to the real server over HTTP, with `--json` payloads, tables, exit codes and a backup round trip
through files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def cli_namespace() -> str:
    return f"cli-{uuid.uuid4().hex[:10]}"


def mnemograph(
    server_url: str, namespace: str, *args: str, stdin: str = ""
) -> tuple[int, str, str]:
    """Run one memory command against the test server; (exit code, stdout, stderr)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMO_")}
    env["MNEMO_LOG_LEVEL"] = "WARNING"
    env["COLUMNS"] = "200"
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", *args, "--url", server_url, "--namespace", namespace],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def as_json(server_url: str, namespace: str, *args: str) -> dict[str, Any]:
    code, out, err = mnemograph(server_url, namespace, *args, "--json")
    assert (code, err) == (0, "")
    return json.loads(out)


def test_save_search_get_timeline_and_stats_from_the_command_line(
    server_url: str, cli_namespace: str
) -> None:
    ns = cli_namespace
    first = as_json(
        server_url,
        ns,
        "save",
        "Neo4j keeps the graph of memories",
        "--key",
        "graph",
        "--type",
        "decision",
        "--tag",
        "arch",
        "--score",
        "80",
    )
    assert (first["created"], first["memory"]["key"], first["memory"]["tags"]) == (
        True,
        "graph",
        ["arch"],
    )
    code, out, err = mnemograph(
        server_url,
        ns,
        "save",
        "-",
        "--key",
        "vectors",
        "--link",
        "graph=0.9",
        stdin="Qdrant keeps the vectors of memories\n",  # as `echo ... |` sends it
    )
    assert (code, err) == (0, "")
    assert out.startswith("created vectors (")
    found = as_json(server_url, ns, "search", "graph of memories", "--mode", "bm25")
    assert [r["key"] for r in found["results"]] == ["graph", "vectors"]
    got = as_json(server_url, ns, "get", "vectors")
    assert got["memories"][0]["content"] == "Qdrant keeps the vectors of memories"
    assert [(link["key"], link["weight"]) for link in got["memories"][0]["links"]] == [
        ("graph", 0.9)
    ]
    code, out, _ = mnemograph(server_url, ns, "get", "vectors")
    assert "Qdrant keeps the vectors of memories" in out
    assert "graph" in out
    timeline = as_json(server_url, ns, "timeline", "graph", "--window", "3")
    assert [(i["key"], i["position"]) for i in timeline["timeline"]] == [
        ("graph", "anchor"),
        ("vectors", "after"),
    ]
    stats = as_json(server_url, ns, "stats")
    assert (stats["memoryCount"], stats["linkCount"]) == (2, 1)
    retrieved = as_json(server_url, ns, "retrieve", "where are vectors kept", "--mode", "keyword")
    assert retrieved["results"][0]["key"] == "vectors"


def test_exit_codes_say_what_went_wrong(server_url: str, cli_namespace: str) -> None:
    code, out, err = mnemograph(server_url, cli_namespace, "get", "no-such-key")
    assert (code, out) == (3, "")
    assert err == "mnemograph: not_found: Memory not found: no-such-key\n"
    code, _, err = mnemograph(server_url, cli_namespace, "timeline", "x", "--window", "99")
    assert code == 1
    assert err.startswith("mnemograph: invalid_parameter: Invalid window value: 99")
    code, _, err = mnemograph("http://127.0.0.1:9", cli_namespace, "stats")
    assert code == 4
    assert err.startswith("mnemograph: unreachable: cannot reach http://127.0.0.1:9")
    code, _, err = mnemograph(server_url, cli_namespace, "search")
    assert code == 2
    assert "the following arguments are required: query" in err


def test_export_and_import_files_round_trip_a_namespace(
    server_url: str, cli_namespace: str, tmp_path: Path
) -> None:
    ns = cli_namespace
    first = "first memory\u2028its second line\u0085and a third"  # Unicode line breaks
    as_json(server_url, ns, "save", first, "--key", "one")
    as_json(server_url, ns, "save", "second memory", "--key", "two", "--link", "one=0.4")
    backup = tmp_path / "backup.jsonl"
    exported = as_json(server_url, ns, "export", "-o", str(backup))
    assert (exported["memories"], exported["links"]) == (2, 1)
    lines = [json.loads(line) for line in backup.read_text().splitlines()]
    assert [line["kind"] for line in lines] == ["header", "memory", "memory", "link", "end"]
    assert lines[1]["content"] == first
    kept = backup.read_text()
    code, _, _ = mnemograph("http://127.0.0.1:9", ns, "export", "-o", str(backup))
    assert (code, backup.read_text()) == (4, kept)  # a failed export leaves the file alone
    code, _, err = mnemograph(server_url, ns, "export", "-o", str(tmp_path / "no" / "x.jsonl"))
    assert code == 2
    assert err.startswith("mnemograph: usage: Invalid output value: ")
    copy_ns = f"{ns}-copy"
    code, out, _ = mnemograph(server_url, copy_ns, "import", str(backup), "--json")
    report = json.loads(out)
    assert (code, report["memories"], report["links"], report["failed"]) == (
        0,
        {"created": 2, "updated": 0, "remapped": 2},
        1,
        0,
    )  # the ids belong to the first namespace: the import copies under new ids
    code, out, _ = mnemograph(server_url, copy_ns, "import", str(backup))
    assert (code, out.splitlines()[:2]) == (
        0,
        [
            "memories: 0 created, 2 updated; links: 1; superseded: 0; failed lines: 0",
            "2 memories copied under new ids: their exported ids belong to another namespace "
            "(links and supersessions follow them)",
        ],
    )
    code, out, _ = mnemograph(server_url, ns, "import", str(backup))
    assert code == 0
    assert out.startswith("memories: 0 created, 2 updated; links: 1;")
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(backup.read_text().splitlines(keepends=True)[:-1]))
    code, out, err = mnemograph(server_url, ns, "import", str(cut))
    assert (code, err) == (
        1,
        "mnemograph: incomplete: the file has no end line: it may be cut short\n",
    )
    assert out.startswith("memories: 0 created, 2 updated; links: 1;")
    code, out, _ = mnemograph(server_url, ns, "export")
    assert code == 0
    assert out.splitlines()[1:] == backup.read_text().splitlines()[1:]
