"""Prometheus metrics of the service: requests and latencies per route and per tool, failures
by error type, backend readiness and the context backlog."""

from __future__ import annotations

import time
from collections.abc import Mapping

from prometheus_client import Counter, Gauge, Histogram
from starlette.types import ASGIApp, Message, Receive, Scope, Send

REQUESTS = Counter(
    "mnemograph_http_requests_total",
    "HTTP requests by route and status",
    ["method", "route", "status"],
)
REQUEST_LATENCY = Histogram(
    "mnemograph_http_request_seconds",
    "HTTP request latency by route",
    ["method", "route"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)
TOOL_LATENCY = Histogram(
    "mnemograph_tool_seconds",
    "MCP tool call latency by tool",
    ["tool"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)
ERRORS = Counter(
    "mnemograph_errors_total",
    "Failures answered with the error envelope, by surface (http, mcp) and error type",
    ["surface", "error_type"],
)
BACKEND_READY = Gauge(
    "mnemograph_backend_ready", "1 when the backend answered /readyz", ["backend"]
)


CONTEXT_BACKLOG = Gauge(
    "mnemograph_context_backlog",
    "Memories waiting for their graph-contextual refresh, by pass: pending (no current text), "
    "approximate (text current, vector a mean of stored ones until the model embeds the text)",
    ["state"],
)
CONTEXT_OLDEST_WAIT = Gauge(
    "mnemograph_context_oldest_wait_seconds",
    "How long the oldest memory of the context backlog has waited",
)


CONTEXT_REFRESHES = Gauge(
    "mnemograph_context_refreshes",
    "Context refreshes of this process since it started, by outcome: approximated (first pass, "
    "mean vector, the text to be embedded), averaged (a context too long to be read whole: the "
    "mean vector is final), embedded (second pass), kept (text and payload unchanged: no "
    "vector written)",
    ["outcome"],
)


LINK_GRAPH_LOOKUPS = Gauge(
    "mnemograph_link_graph",
    "Graph walks' link graph lookups of this process since it started, by outcome: current (the "
    "walk ran in process), stale (it ran in Neo4j), loaded (a snapshot loaded), discarded (a write "
    "committed during its load)",
    ["outcome"],
)
LINK_GRAPH_ITEMS = Gauge(
    "mnemograph_link_graph_items",
    "Memories plus link ends held in process for the graph walk (neo4j.link_graph_items bounds it)",
)


VIEW_CACHE_LOOKUPS = Gauge(
    "mnemograph_view_cache",
    "Memories retrieve_context asked for since the start, by outcome: held (in process, at the "
    "graph version the retrieve read), read (from Neo4j)",
    ["outcome"],
)
VIEW_CACHE_BYTES = Gauge(
    "mnemograph_view_cache_bytes",
    "Estimated bytes of the memories retrieve_context holds (search.view_cache_mb bounds it)",
)


def observe_view_cache(counts: Mapping[str, int], used: int) -> None:
    for outcome, count in counts.items():
        VIEW_CACHE_LOOKUPS.labels(outcome).set(count)
    VIEW_CACHE_BYTES.set(used)


def observe_link_graphs(counts: Mapping[str, int], held: int) -> None:
    for outcome, count in counts.items():
        LINK_GRAPH_LOOKUPS.labels(outcome).set(count)
    LINK_GRAPH_ITEMS.set(held)


def observe_context_backlog(pending: int, approximate: int, oldest_wait_s: float) -> None:
    CONTEXT_BACKLOG.labels("pending").set(pending)
    CONTEXT_BACKLOG.labels("approximate").set(approximate)
    CONTEXT_OLDEST_WAIT.set(oldest_wait_s)


def observe_context_refreshes(counts: Mapping[str, int]) -> None:
    for outcome, count in counts.items():
        CONTEXT_REFRESHES.labels(outcome).set(count)


def observe_readiness(checks: Mapping[str, Mapping[str, str]]) -> None:
    for backend, check in checks.items():
        BACKEND_READY.labels(backend).set(1 if check.get("status") == "ok" else 0)


CLIENT_CLOSED = 499  # the status counted for a client gone before any answer started


class RequestMetrics:
    """Counts and times every HTTP request by method, route template and status, until its
    body is sent (plain ASGI: no task per request, as Starlette's `BaseHTTPMiddleware` has).
    A request that ended without an answer counts as 499 when its client was seen leaving
    (while its body was read), otherwise as 500."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = time.perf_counter()
        status: int | None = None
        client_left = False

        async def listened() -> Message:
            nonlocal client_left
            message = await receive()
            client_left = client_left or message["type"] == "http.disconnect"
            return message

        async def watched(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, listened, watched)
        finally:
            if status is None:
                status = CLIENT_CLOSED if client_left else 500
            route = getattr(scope.get("route"), "path", "other")
            REQUESTS.labels(scope["method"], route, str(status)).inc()
            REQUEST_LATENCY.labels(scope["method"], route).observe(time.perf_counter() - started)
