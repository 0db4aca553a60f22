"""HTTP routes for operators: liveness, readiness (Neo4j, Qdrant, embedder) and metrics."""

from __future__ import annotations

import contextlib
import time
from typing import Literal, NotRequired

from fastapi import APIRouter, Request
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import with_config
from typing_extensions import TypedDict

from service.api.http.responses import JSONResponse
from service.api.metrics import (
    observe_context_backlog,
    observe_context_refreshes,
    observe_link_graphs,
    observe_readiness,
    observe_view_cache,
)
from service.app import Runtime, RuntimeRef
from service.core.results import CLOSED
from service.errors import BackendUnavailable
from service.version import VERSION

PROMETHEUS_TEXT = {"type": "string", "description": "Prometheus text exposition format."}
router = APIRouter(tags=["ops"])  # probes: cache-busters and scrape params are harmless


@with_config(CLOSED)
class Health(TypedDict):
    success: bool
    status: Literal["ok"]
    version: str
    data_folder_id: str | None


@with_config(CLOSED)
class ContextBacklog(TypedDict):
    """Memories of this process's vector storage waiting for their context: `pending` (no
    current text), `approximate` (vector still a mean), and the oldest's wait in seconds."""

    pending: int
    approximate: int
    oldestWaitS: float


@with_config(CLOSED)
class Readiness(TypedDict):
    """Each check: `status` ok or error, `ms`, and `error`/`message` when it failed; Qdrant's
    `engine` and the embedder's `model`; the context backlog when Neo4j answered."""

    success: bool
    status: Literal["ok", "unavailable"]
    checks: dict[str, dict[str, str]]
    contextBacklog: NotRequired[ContextBacklog]


@router.get("/healthz", response_model=Health)
async def healthz(request: Request) -> Health:
    """Liveness: the process answers; `version` is the package's, `data_folder_id` names the
    data folder it serves."""
    folder: str | None = request.app.state.data_folder_id
    return {"success": True, "status": "ok", "version": VERSION, "data_folder_id": folder}


@router.get("/readyz", response_model=Readiness)
async def readyz(request: Request) -> JSONResponse:
    """Readiness: Neo4j, Qdrant and the embedder each answer, and the last vector write did not
    fail (or the engine has been reopened since). The context backlog is reported beside: a
    lag, not a failure."""
    ref: RuntimeRef = request.app.state.runtime_ref
    runtime = ref.get()
    checks = await readiness(runtime)
    ready = all(check["status"] == "ok" for check in checks.values())
    observe_readiness(checks)
    body: Readiness = {
        "success": ready,
        "status": "ok" if ready else "unavailable",
        "checks": checks,
    }
    if checks["neo4j"]["status"] == "ok":
        body["contextBacklog"] = await context_backlog(runtime)
    return JSONResponse(body, status_code=200 if ready else 503)


@router.get(
    "/metrics",
    response_class=Response,
    responses={200: {"content": {CONTENT_TYPE_LATEST: {"schema": PROMETHEUS_TEXT}}}},
)
async def metrics(request: Request) -> Response:
    """Prometheus metrics (context backlog, link graph and view cache counts read at the scrape)."""
    ref: RuntimeRef = request.app.state.runtime_ref
    rt = ref.get()
    with contextlib.suppress(BackendUnavailable):
        await context_backlog(rt)
    observe_link_graphs(rt.graph.link_graphs.counts, rt.graph.link_graphs.held)
    views = rt.retrieval.context.views
    observe_view_cache(views.counts, views.used)
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)


async def context_backlog(rt: Runtime) -> ContextBacklog:
    """The backlog of the context indexers of this process's vector storage, all namespaces,
    also set in the metrics."""
    backlog = await rt.context.backlog_details()
    observe_context_backlog(backlog.pending, backlog.approximate, backlog.oldest_wait_s)
    observe_context_refreshes(rt.context.counts)
    return {
        "pending": backlog.pending,
        "approximate": backlog.approximate,
        "oldestWaitS": backlog.oldest_wait_s,
    }


async def readiness(rt: Runtime) -> dict[str, dict[str, str]]:
    """Each backend probed in turn, with its status and time."""
    checks: dict[str, dict[str, str]] = {}
    for name, probe in (
        ("neo4j", rt.graph.check),
        ("qdrant", rt.vectors.check),
        ("embedder", lambda: rt.embedder.embed(["readiness"])),
    ):
        started = time.perf_counter()
        try:
            await probe()
            status = {"status": "ok"}
        except BackendUnavailable as exc:  # our own words: which store and why (no payloads)
            status = {"status": "error", "error": type(exc).__name__, "message": exc.message}
        except Exception as exc:
            status = {"status": "error", "error": type(exc).__name__}
        status["ms"] = f"{(time.perf_counter() - started) * 1000:.1f}"
        checks[name] = status
    checks["qdrant"]["engine"] = rt.vectors.engine
    checks["embedder"]["model"] = rt.embedder.model
    return checks
