"""The HTTP application: `/v1` routers (same payloads as the tools), health, metrics and the
MCP streamable HTTP endpoint at `/mcp`, with one handler that maps errors to the §2 envelope."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from mcp.server.transport_security import TransportSecuritySettings
from starlette.exceptions import HTTPException as StarletteHTTPException

from service.api.http import backup, batch, lifecycle, links, memories, ops, search
from service.api.http.activity import MarksActivity
from service.api.http.guards import (
    BodyLimit,
    Deadline,
    HostGuard,
    McpAuthGuard,
    RateGuard,
    RequestId,
    transport_patterns,
)
from service.api.http.openapi import install_openapi
from service.api.http.responses import JSONResponse
from service.api.mcp.server import build_mcp_server
from service.api.metrics import ERRORS, RequestMetrics
from service.api.ratelimit import RateLimiter
from service.api.tools import EXPORT_PATH, IMPORT_PATH, list_fields_for_path
from service.app import RuntimeRef, open_runtime
from service.auth import Authenticator
from service.config import Settings
from service.data_folder import folder_id
from service.errors import (
    InvalidParameter,
    MnemographError,
    NotFound,
    error_envelope,
    invalid_from_validation,
)
from service.version import VERSION


def create_app(settings: Settings) -> FastAPI:
    """The ASGI app: opens the runtime in its lifespan and serves HTTP + MCP."""
    ref = RuntimeRef()
    mcp = build_mcp_server(ref, settings.mcp.tool_prefix, settings.search.enabled, settings.limits)
    hosts, origins = transport_patterns(settings.http)
    mcp_app = mcp.streamable_http_app(
        streamable_http_path="/mcp",
        stateless_http=True,
        host=settings.http.host,
        max_request_body_size=settings.limits.max_request_bytes,
        transport_security=TransportSecuritySettings(
            enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
        ),
    )

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncGenerator[None]:
        async with open_runtime(settings) as runtime, mcp.session_manager.run():
            app.state.data_folder_id = folder_id.read(settings.data_dir)
            ref.set(runtime)
            try:
                yield
            finally:
                ref.set(None)

    app = FastAPI(
        title="Mnemograph",
        version=VERSION,
        description="Graph-backed memory for AI agents: the HTTP twin of the MCP tools.",
        lifespan=lifespan,
        redirect_slashes=False,  # a key or id ending in "/" is a 404, not a redirect elsewhere
    )
    app.state.runtime_ref = ref
    app.state.data_folder_id = None
    add_error_handlers(app)
    add_middleware(app, settings)
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
    install_openapi(app, settings.limits)
    app.router.routes.extend(mcp_app.routes)  # `/mcp` itself: any other path is a 404 envelope
    return app


def add_error_handlers(app: FastAPI) -> None:
    """Every failure as the §2 envelope with its HTTP status (bugs: see `RequestId`)."""

    @app.exception_handler(MnemographError)
    async def _mnemograph_error(request: Request, exc: MnemographError) -> JSONResponse:
        return error_response(request, exc)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(request, invalid_from_validation(exc.errors()))

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return error_response(request, http_error(exc, request))


def add_middleware(app: FastAPI, settings: Settings) -> None:
    """The guards, then request metrics (outermost last): deadline, body limit, the key on /mcp,
    rate limit, CORS when configured, Host/Origin, request id, the process's activity; metrics
    see every answer the application gives."""
    limits = settings.limits
    hosts, origins = transport_patterns(settings.http)
    # Backup and restore stream for as long as the namespace takes; an import's body goes to
    # its route as it arrives, bounded there (limits.max_import_bytes), never buffered here.
    app.add_middleware(
        Deadline, timeout_s=limits.request_timeout_s, exempt=(EXPORT_PATH, IMPORT_PATH)
    )
    app.add_middleware(
        BodyLimit,
        max_bytes=limits.max_request_bytes,
        streamed={IMPORT_PATH: limits.max_import_bytes},
    )
    app.add_middleware(McpAuthGuard, authenticator=Authenticator(settings.auth))
    app.add_middleware(RateGuard, limiter=RateLimiter(limits.rate_per_s, limits.rate_burst))
    if settings.http.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.http.cors_origins,
            allow_methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
            allow_headers=["authorization", "x-api-key", "content-type", "mcp-protocol-version"],
        )
    app.add_middleware(HostGuard, hosts=hosts, origins=origins)
    app.add_middleware(RequestId)
    app.add_middleware(MarksActivity)
    app.add_middleware(RequestMetrics)


def http_error(exc: StarletteHTTPException, request: Request) -> MnemographError:
    """Starlette's own refusals (no such route, a method the route lacks, a body that is not
    JSON) as our errors."""
    if exc.status_code == 404:
        return NotFound(f"No route {request.method} {request.url.path}")
    if exc.status_code == 405:
        return MethodNotAllowed(f"Method {request.method} is not allowed on {request.url.path}")
    return InvalidParameter(f"Invalid request: {exc.detail}")


class MethodNotAllowed(InvalidParameter):
    http_status = 405


def error_response(request: Request, error: MnemographError) -> JSONResponse:
    ERRORS.labels("http", error.error_type).inc()
    lists = list_fields_for_path(request.url.path, request.method)
    return JSONResponse(error_envelope(error, lists), status_code=error.http_status)
