"""Where a retrieve's time goes in the service: py-spy samples a real `mnemograph serve` while
one client sends retrieves back to back, and each sample of the event loop's thread is
attributed to the part of the retrieve on its stack (`PARTS`, the first that matches). Beside
it, the model's thread and the CPU of the service and of Neo4j per retrieve.

Steps: a fresh Neo4j, the perf corpus loaded over HTTP, the context backlog drained, rounds of
300 retrieves until warm, then `--seconds` of retrieves (each with a query of its own) under
py-spy (`--rate` samples per second).

Run: `python -m bench.profile_retrieve [--size 2000] [--mode hybrid] [--seconds 25]
[--samples FILE]` (py-spy, of the `bench` group, needs ptrace on the service: root, or a
ptrace_scope of 0); writes bench/results/profile_<mode>_<size>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import httpx

from bench import perf_http as h
from bench.common import context_passes, local_neo4j, neo4j_pid, service_process, write_results
from bench.perf import cpu_per_op, cpu_seconds, load, stat_cpu_s
from bench.perf_corpus import corpus, queries

WARM_UP = 300
MAX_WARM_ROUNDS = 8
# A sample of the event loop's thread belongs to the first part with a frame on its stack that
# contains one of the part's markers; what matches none is the event loop's own work.
PARTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("vector searches (Qdrant Edge and its hits into Python)", ("EdgeVectorStore.search",)),
    ("redundancy pass", ("distinct_order",)),
    ("hydration (statement, driver, views)", ("MemoryReader.hydrate",)),
    ("lexical statement (driver, hits)", ("Channels.lexical",)),
    ("graph walk", ("Channels.walk", "Channels.link_graph")),
    ("fusion and ranking", ("ContextRetriever", "Retrieval.")),
    ("HTTP and middleware", ("uvicorn/protocols", "starlette/", "fastapi/", "service/api/")),
)
EVENT_LOOP = "event loop (callbacks, socket reads and writes, and its waits in uvloop)"
DRIVER = "neo4j/"  # the driver's frames, whichever part they serve
MODEL = "LocalMiniLM"


def part_of(frames: Sequence[str]) -> str:
    """The part a sample of the event loop's thread belongs to."""
    for part, markers in PARTS:
        if any(marker in frame for frame in frames for marker in markers):
            return part
    return EVENT_LOOP


def profile_parts(raw: Iterable[str], calls: int, rate: int) -> dict[str, Any]:
    """py-spy's raw lines (`frame;frame;... count`, outermost frame first) as ms of wall time
    per call: the event loop's thread by part (a wait inside uvloop counts as the loop's), the
    driver's share of it, and the model's thread."""
    samples: Counter[str] = Counter()
    driver = model = 0
    for line in raw:
        stack, _, count_text = line.rstrip().rpartition(" ")
        if not stack:
            continue
        frames, count = stack.split(";"), int(count_text)
        if frames[0].startswith("Thread._bootstrap"):
            model += count if any(MODEL in frame for frame in frames) else 0
            continue
        samples[part_of(frames)] += count
        driver += count if any(DRIVER in frame for frame in frames) else 0

    def ms(count: int) -> float:
        return round(count * 1000 / rate / calls, 2)

    order = [part for part, _ in PARTS] + [EVENT_LOOP]
    return {
        "event_loop_thread_sampled_ms": ms(sum(samples.values())),
        "parts_ms": {part: ms(samples[part]) for part in order},
        "neo4j_driver_ms": ms(driver),
        "model_thread_ms": ms(model),
    }


def thread_cpu_s(pid: int) -> dict[str, float]:
    """CPU seconds (user + system) of the process's main thread, the event loop's, and of its
    other threads together."""
    used: dict[str, float] = {"event_loop_thread": 0.0, "other_threads": 0.0}
    for task in Path(f"/proc/{pid}/task").iterdir():
        thread = "event_loop_thread" if task.name == str(pid) else "other_threads"
        used[thread] += stat_cpu_s(task / "stat")
    return used


def py_spy() -> str:
    """The py-spy executable (of the `bench` group, beside this interpreter or on the PATH)."""
    beside = Path(sys.executable).with_name("py-spy")
    found = str(beside) if beside.exists() else shutil.which("py-spy")
    if found is None:
        raise SystemExit("py-spy not found: `uv sync --group bench` installs it")
    return found


def warmed(client: httpx.Client, mode: str, pids: dict[str, int], taken: set[str]) -> list[float]:
    """Retrieves in rounds of WARM_UP until the CPU per retrieve stops falling by more than a
    tenth (Neo4j's JIT compiles its statements over the first hundreds of calls; on a slow CPU
    over more); the service's and Neo4j's CPU ms per retrieve of each round."""
    rounds: list[float] = []
    for seed in range(700, 700 + MAX_WARM_ROUNDS):
        before = cpu_seconds(pids)
        for query in queries(WARM_UP, seed, taken):
            h.checked(h.retrieve(query, mode)(client))
        used = cpu_per_op(before, cpu_seconds(pids), WARM_UP)
        rounds.append(round(used["service"] + used["neo4j"], 2))
        if len(rounds) > 1 and rounds[-1] > 0.9 * rounds[-2]:
            break
    return rounds


def profiled(
    url: str, pids: dict[str, int], mode: str, seconds: int, rate: int, out: Path
) -> dict[str, Any]:
    """Retrieves back to back, once warm, while py-spy samples the service for `seconds`."""
    taken: set[str] = set()
    with httpx.Client(base_url=url, timeout=600) as client:
        warm_up = warmed(client, mode, pids, taken)
        timed = queries(200 * seconds, 602, taken)
        before, threads_before = cpu_seconds(pids), thread_cpu_s(pids["service"])
        command = [py_spy(), "record", "--format", "raw", "--rate", str(rate)]
        command += ["--duration", str(seconds), "--output", str(out), "--pid", str(pids["service"])]
        spy = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)  # py-spy attaches
        latencies: list[float] = []
        while spy.poll() is None:
            started = time.perf_counter()
            h.checked(h.retrieve(timed[len(latencies) % len(timed)], mode)(client))
            latencies.append((time.perf_counter() - started) * 1000)
        cpu = cpu_per_op(before, cpu_seconds(pids), len(latencies))
        threads = cpu_per_op(threads_before, thread_cpu_s(pids["service"]), len(latencies))
    if spy.returncode != 0:
        raise SystemExit(f"py-spy failed ({spy.returncode}): it needs ptrace on the service")
    return {
        "warm_up_cpu_ms_per_call": warm_up,
        "calls": len(latencies),
        "p50_ms": round(sorted(latencies)[len(latencies) // 2], 2),
        "cpu_ms_per_call": cpu,
        "service_threads_cpu_ms_per_call": {name: threads[name] for name in threads_before},
    }


def run(size: int, mode: str, seconds: int, rate: int, keep: Path | None) -> dict[str, Any]:
    with (
        tempfile.TemporaryDirectory() as samples,
        local_neo4j() as (neo4j, folder),
        service_process(neo4j, folder) as (url, process),
    ):
        with httpx.Client(base_url=url, timeout=600) as client:
            load_s = load(client, list(corpus(size)))
        asyncio.run(context_passes(neo4j.uri, timeout_s=3 * 3600))
        pids = {"service": process.pid, "neo4j": neo4j_pid(folder)}
        raw = Path(samples) / "py-spy.txt"
        series = profiled(url, pids, mode, seconds, rate, raw)
        with raw.open() as lines:
            parts = profile_parts(lines, series["calls"], rate)
        if keep is not None:
            shutil.copyfile(raw, keep)
    return {
        "size": size,
        "mode": mode,
        "load_s": round(load_s, 1),
        "rate_per_s": rate,
        **series,
        **parts,
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Where a retrieve's time goes in the service.")
    parser.add_argument("--size", type=int, default=2000)
    parser.add_argument("--mode", default="hybrid")
    parser.add_argument("--seconds", type=int, default=25)
    parser.add_argument("--rate", type=int, default=250)
    parser.add_argument("--samples", type=Path, help="keep py-spy's raw samples in this file")
    args = parser.parse_args(argv)
    results = run(args.size, args.mode, args.seconds, args.rate, args.samples)
    write_results(f"profile_{args.mode}_{args.size}", results)


if __name__ == "__main__":
    main()
