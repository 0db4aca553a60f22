"""Start-up of the command line against a running daemon: the wall and CPU time of a whole
`mnemograph search` (a new process, its request, its table), and how long `mnemograph mcp` takes
to answer an MCP client's `initialize` (relayed to the daemon).

Run: `python -m bench.startup [--runs 15]`; writes bench/results/startup.json.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

from bench.common import local_neo4j, service_env, service_process, write_results

QUERY = "why did the nightly export fail"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}


def command() -> list[str]:
    """The installed `mnemograph` next to this interpreter."""
    found = shutil.which("mnemograph", path=os.path.dirname(sys.executable))
    if found is None:
        raise RuntimeError("no mnemograph command beside this interpreter")
    return [found]


def search_once(env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one `mnemograph search`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([*command(), "search", QUERY], env=env, check=True, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def mcp_ready_once(env: dict[str, str]) -> float:
    """Seconds from starting `mnemograph mcp` to its answer to `initialize`."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [*command(), "mcp"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    process.stdin.flush()
    answer = process.stdout.readline()
    ready = time.perf_counter() - started
    process.stdin.close()
    process.wait(timeout=30)
    if b'"result"' not in answer:
        raise RuntimeError(f"mnemograph mcp answered {answer[:200]!r}")
    return ready


def p50_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 1)


def measure(runs: int) -> dict[str, Any]:
    with local_neo4j() as (neo4j, data), service_process(neo4j, data) as (url, _):
        env = {**service_env(neo4j, data), "MNEMO_HTTP__PORT": url.rsplit(":", 1)[1]}
        save = [*command(), "save", "The nightly export failed: the disk was full."]
        subprocess.run(save, env=env, check=True, capture_output=True)
        search_once(env)  # warm: the interpreter's files in the page cache
        searches = [search_once(env) for _ in range(runs)]
        mcp_ready_once(env)
        ready = [mcp_ready_once(env) for _ in range(runs)]
    return {
        "runs": runs,
        "load": list(os.getloadavg()),
        "search": {
            "wall_p50_ms": p50_ms([wall for wall, _ in searches]),
            "wall_min_ms": round(min(wall for wall, _ in searches) * 1000, 1),
            "cpu_p50_ms": p50_ms([cpu for _, cpu in searches]),
        },
        "mcp_ready": {"p50_ms": p50_ms(ready), "min_ms": round(min(ready) * 1000, 1)},
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Start-up of `mnemograph search` and `mcp`.")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args(argv)
    write_results("startup", measure(args.runs))


if __name__ == "__main__":
    main()
