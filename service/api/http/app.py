"""The HTTP application: `/v1` routers (same payloads as the tools), health, metrics and the
MCP streamable HTTP endpoint at `/mcp`, with one handler that maps errors to the §2 envelope."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

from service.api.http import backup, batch, lifecycle, links, memories, ops, search
from service.api.mcp.server import build_mcp_server
from service.api.metrics import REQUEST_LATENCY, REQUESTS
from service.api.tools import IMPORT_PATH, list_fields_for_path
from service.app import RuntimeRef, open_runtime
from service.config import LimitsSettings, Settings
from service.core.errors import (
    InternalError,
    MnemographError,
    PayloadTooLarge,
    error_envelope,
    invalid_from_validation,
)

log = logging.getLogger(__name__)


def create_app(settings: Settings) -> FastAPI:
    """The ASGI app: opens the runtime in its lifespan and serves HTTP + MCP."""
    ref = RuntimeRef()
    mcp = build_mcp_server(ref, settings.mcp.tool_prefix, settings.search.enabled)
    mcp_app = mcp.streamable_http_app(
        streamable_http_path="/mcp",
        stateless_http=True,
        host=settings.http.host,
        max_request_body_size=settings.limits.max_request_bytes,
    )

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncGenerator[None]:
        async with open_runtime(settings) as runtime, mcp.session_manager.run():
            ref.set(runtime)
            try:
                yield
            finally:
                ref.set(None)

    app = FastAPI(
        title="Mnemograph",
        version="0.1.0",
        description="Graph-backed memory for AI agents: the HTTP twin of the MCP tools.",
        lifespan=lifespan,
    )
    app.state.runtime_ref = ref
    add_error_handlers(app)
    add_middleware(app, settings.limits)
    for router in (
        ops.router,
        memories.router,
        batch.router,
        backup.router,
        links.router,
        search.router,
        lifecycle.router,
    ):
        app.include_router(router)
    if settings.search.enabled:
        app.include_router(search.search_router)
    app.mount("/", mcp_app)
    return app


def add_error_handlers(app: FastAPI) -> None:
    """Every failure as the §2 envelope with its HTTP status."""

    @app.exception_handler(MnemographError)
    async def _mnemograph_error(request: Request, exc: MnemographError) -> JSONResponse:
        return error_response(request, exc)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(request, invalid_from_validation(exc.errors()))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        error = InternalError()
        log.exception("request %s failed (request id %s)", request.url.path, error.request_id)
        return error_response(request, error)


def add_middleware(app: FastAPI, limits: LimitsSettings) -> None:
    """Body size limit (before the body is read; imports have their own) and request metrics."""

    @app.middleware("http")
    async def _limit_body(request: Request, call_next: Any) -> Response:
        declared = request.headers.get("content-length", "")
        limit = (
            limits.max_import_bytes if request.url.path == IMPORT_PATH else limits.max_request_bytes
        )
        if declared.isdigit() and int(declared) > limit:
            error = PayloadTooLarge(f"Request body is {declared} bytes; the limit is {limit}")
            return error_response(request, error)
        return await call_next(request)

    @app.middleware("http")
    async def _measure(request: Request, call_next: Any) -> Response:
        started = time.perf_counter()
        response: Response = await call_next(request)
        route = request.scope.get("route")
        path = getattr(route, "path", "other")
        REQUESTS.labels(request.method, path, str(response.status_code)).inc()
        REQUEST_LATENCY.labels(request.method, path).observe(time.perf_counter() - started)
        return response


def error_response(request: Request, error: MnemographError) -> JSONResponse:
    lists = list_fields_for_path(request.url.path)
    return JSONResponse(error_envelope(error, lists), status_code=error.http_status)
