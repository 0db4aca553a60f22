"""The latency benchmark's report: every bench/results/<size>.json as one markdown table (with
the performance targets) and the peer's recipes beside it, a PNG chart of p50 latency against
store size, both put into docs/performance.md between its `bench:table` markers."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.common import REPO, RESULTS

DOC = REPO / "docs" / "performance.md"
CHART = REPO / "docs" / "performance-latency.png"
START, END = "<!-- bench:table -->", "<!-- /bench:table -->"

# (tool, mode, target p50/p95 text at 10k, at 100k): the performance targets (docs/performance.md).
ROWS: tuple[tuple[str, str, str, str], ...] = (
    ("retrieve_context", "hybrid", "≤ 15 / ≤ 30", "≤ 18 / ≤ 35"),
    ("retrieve_context", "vector", "", ""),
    ("retrieve_context", "keyword", "", ""),
    ("retrieve_context", "kv", "", ""),
    ("retrieve_context", "graph", "", ""),
    ("memory_search", "hybrid", "≤ 25", "≤ 30"),
    ("memory_search", "bm25", "", ""),
    ("memory_search", "vector", "", ""),
    ("memory_fulltext_search", "default", "≤ 15", "≤ 20"),
    ("memory_save", "default", "≤ 20", "≤ 20"),
    ("memory_get", "default", "", ""),
    ("memory_get", "links_1000", "≤ 20", "≤ 20"),
    ("memory_timeline", "default", "", ""),
    ("memory_stats", "default", "≤ 8", "≤ 8"),
    ("memory_stats", "small_namespace", "≤ 8", "≤ 8"),
)


def load_results() -> dict[int, dict[str, Any]]:
    """Size → the latest result file of that size."""
    found: dict[int, dict[str, Any]] = {}
    for path in RESULTS.glob("*.json"):
        if path.stem.isdigit():
            found[int(path.stem)] = json.loads(path.read_text())
    return dict(sorted(found.items()))


def _cell(result: dict[str, Any], tool: str, mode: str) -> str:
    stats = result.get(tool, {}).get(mode)
    if not stats:
        return "–"
    return f"{stats['p50_ms']:.1f} / {stats['p95_ms']:.1f} ({stats['ops_per_s']:.0f}/s)"


def table(results: dict[int, dict[str, Any]]) -> str:
    """Markdown: one row per series, one column per size, then throughput, floor and memory."""
    sizes = list(results)
    head = " | ".join(f"{size:,} p50 / p95 ms (ops/s)" for size in sizes)
    lines = [
        f"| call | {head} | target p50 / p95 ms, 10k · 100k |",
        "|---" * (len(sizes) + 2) + "|",
    ]
    for tool, mode, t10, t100 in ROWS:
        cells = " | ".join(_cell(results[size], tool, mode) for size in sizes)
        target = f"{t10} · {t100}" if t10 else ""
        lines.append(f"| {tool} {mode} | {cells} | {target} |")
    extra: list[tuple[str, Callable[[dict[str, Any]], str], str]] = [
        ("bulk import, memories/s (embedder alone/s)", _ingest, "≥ 80% of the embedder"),
        ("contexts searchable · embedded after the load, × its time", _catch_up, "≤ 1.2"),
        ("retrieve_context hybrid / floor (floor ms)", _floor, "≤ 1.5"),
        ("graph expansion alone (2 hops, 5 seeds), p50 ms", _expansion, "≤ 3 · ≤ 3"),
        ("retrieve_context hybrid, 8 clients: ops/s (p95 ms)", _concurrency, "≥ 100 · ≥ 80"),
        (
            "8 clients: CPU ms per retrieve, service + Neo4j (ops/s all cores would allow)",
            _cpu_per_retrieve,
            "",
        ),
        ("service RSS, MB", _rss, ""),
    ]
    for label, render, target in extra:
        cells = " | ".join(render(results[size]) for size in sizes)
        lines.append(f"| {label} | {cells} | {target} |")
    for recipe in peer_recipes(results):
        cells = " | ".join(_peer_cell(results[size], recipe) for size in sizes)
        lines.append(f"| Graphiti {recipe}, in-process (× our hybrid p50) | {cells} | ≥ 3× |")
    return "\n".join(lines)


def peer_recipes(results: dict[int, dict[str, Any]]) -> list[str]:
    """The Graphiti recipes measured in any result, in the order first met."""
    found: dict[str, None] = {}
    for result in results.values():
        graphiti = result.get("peers", {}).get("graphiti", {})
        found.update((name, None) for name, value in graphiti.items() if "p50_ms" in value)
    return list(found)


def _peer_cell(result: dict[str, Any], recipe: str) -> str:
    stats = result.get("peers", {}).get("graphiti", {}).get(recipe)
    if not stats:
        return "–"
    return f"{stats['p50_ms']:.1f} / {stats['p95_ms']:.1f} ({stats['ratio_to_hybrid']:.2f}×)"


def _ingest(result: dict[str, Any]) -> str:
    ingest = result.get("ingest", {})
    return f"{ingest.get('memories_per_s', '–')} ({ingest.get('embedder_per_s', '–')})"


def _catch_up(result: dict[str, Any]) -> str:
    """Load time plus each context pass's lag after it, as a multiple of the load time."""
    ingest = result.get("ingest", {})
    load_s, drain_s = ingest.get("load_s"), ingest.get("context_drain_s")
    if not load_s or drain_s is None:
        return "–"
    first_s = ingest.get("context_first_pass_s")
    searchable = f"{(load_s + first_s) / load_s:.2f}" if first_s is not None else "–"
    return f"{searchable} · {(load_s + drain_s) / load_s:.2f}"


def _rss(result: dict[str, Any]) -> str:
    return f"{result.get('rss_mb', '–')}"


def _floor(result: dict[str, Any]) -> str:
    floor = result.get("floor", {}).get("retrieve_context.hybrid", {})
    return f"{floor.get('ratio', '–')} ({floor.get('floor_ms', '–')})"


def _expansion(result: dict[str, Any]) -> str:
    floor = result.get("floor", {}).get("retrieve_context.hybrid", {})
    return f"{floor.get('graph_expansion_p50_ms', '–')}"


def _concurrency(result: dict[str, Any]) -> str:
    eight = result.get("concurrency", {}).get("8", {})
    return f"{eight.get('ops_per_s', '–')} ({eight.get('p95_ms', '–')})"


def _cpu_per_retrieve(result: dict[str, Any]) -> str:
    cpu = result.get("concurrency_cpu")
    if not cpu:
        return "–"
    return f"{cpu['service']:.1f} + {cpu['neo4j']:.1f} ({cpu['ceiling_ops_per_s']:.0f})"


def chart(results: dict[int, dict[str, Any]], path: Path = CHART) -> None:
    """p50 latency of every series against the store size (log scale), as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as typed_pyplot

    pyplot: Any = typed_pyplot  # matplotlib is partially typed: typed here, at the boundary
    sizes = list(results)
    figure, axes = pyplot.subplots(figsize=(9, 5.5), dpi=100)
    markers = dict(zip(dict.fromkeys(tool for tool, *_ in ROWS), "osD^vP*", strict=False))
    colours = pyplot.get_cmap("tab20")
    for number, (tool, mode, _, _) in enumerate(ROWS):
        points = [
            (size, results[size][tool][mode]["p50_ms"])
            for size in sizes
            if mode in results[size].get(tool, {})
        ]
        if points:
            xs, ys = zip(*points, strict=True)
            style = {"marker": markers[tool], "color": colours(number)}
            axes.plot(xs, ys, label=f"{tool} {mode}", **style)
    for number, recipe in enumerate(peer_recipes(results)):
        points = [
            (size, results[size]["peers"]["graphiti"][recipe]["p50_ms"])
            for size in sizes
            if recipe in results[size].get("peers", {}).get("graphiti", {})
        ]
        xs, ys = zip(*points, strict=True)
        style = {"marker": "x+1*"[number % 4], "color": "black", "linestyle": "--"}
        axes.plot(xs, ys, label=f"Graphiti {recipe} (in-process)", **style)
    axes.set_xscale("log")
    axes.set_xlabel("memories in the store")
    axes.set_ylabel("p50 latency (ms): ours over HTTP, Graphiti in-process")
    axes.set_title("Mnemograph latency against store size (make bench)")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=7, ncol=2)
    figure.tight_layout()
    figure.savefig(path)
    pyplot.close(figure)


def update_doc(results: dict[int, dict[str, Any]], doc: Path = DOC) -> None:
    """Replace the text between the markers of docs/performance.md with the latest table."""
    text = doc.read_text()
    machines = "; ".join(
        f"{size:,}: {run_facts(result['machine'])}" for size, result in results.items()
    )
    block = f"{START}\n{table(results)}\n\nRuns: {machines}.\n{END}"
    pattern = re.compile(re.escape(START) + ".*?" + re.escape(END), re.DOTALL)
    doc.write_text(pattern.sub(lambda _: block, text) if pattern.search(text) else text + block)


def run_facts(machine: dict[str, Any]) -> str:
    """When a run was, its load average at the start, and its CPU where recorded."""
    facts = f"{machine.get('when', '')}, load {machine.get('load', '')}"
    if machine.get("cpu"):
        facts += f", {machine['cpu']} ({', '.join(machine.get('cpu_flags', []))})"
    return facts


def main() -> None:
    results = load_results()
    chart(results)
    update_doc(results)
    print(table(results))


if __name__ == "__main__":
    main()
