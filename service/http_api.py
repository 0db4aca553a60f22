"""The HTTP adapter: `/v1` endpoints (same payloads as the tools), health, metrics and `/mcp`.

Routes validate, authenticate and call one service method; one handler maps errors to §2.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import BaseModel, ConfigDict, Field

from service.app import Runtime, open_runtime
from service.auth import Principal
from service.config import Settings
from service.errors import (
    InternalError,
    InvalidParameter,
    MnemographError,
    NotFound,
    PayloadTooLarge,
    error_envelope,
    invalid_from_validation,
)
from service.fulltext import parse_keywords
from service.mcp_server import RuntimeRef, SortLinks, build_mcp_server
from service.metrics import REQUEST_LATENCY, REQUESTS, observe_readiness
from service.models import LinkType, SaveInput, Term, UpdateInput, Weight
from service.search_models import (
    Limit,
    Offset,
    Operator,
    RetrieveInput,
    SearchMode,
    checked_filters,
)
from service.search_models import Query as SearchQuery
from service.sorting import parse_sort_links

log = logging.getLogger(__name__)


class GetBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ids: list[str] = Field(default_factory=list[str])
    keys: list[str] = Field(default_factory=list[str])
    key: str | None = None
    sortLinks: SortLinks = None
    namespace: str | None = None


class LinkBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    weight: Weight = 0.5
    type: LinkType = "related"
    term: Term | None = None


def _runtime(request: Request) -> Runtime:
    ref: RuntimeRef = request.app.state.runtime_ref
    return ref.get()


def _principal(request: Request, rt: Annotated[Runtime, Depends(_runtime)]) -> Principal:
    return rt.authenticator.authenticate(request.headers)


RuntimeDep = Annotated[Runtime, Depends(_runtime)]
PrincipalDep = Annotated[Principal, Depends(_principal)]
NamespaceQuery = Annotated[
    str | None, Query(description="Admin keys only: the namespace to act in.")
]


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

    @app.exception_handler(MnemographError)
    async def _mnemograph_error(request: Request, exc: MnemographError) -> JSONResponse:
        return _error_response(request, exc)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        return _error_response(request, invalid_from_validation(exc.errors()))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        error = InternalError()
        log.exception("request %s failed (request id %s)", request.url.path, error.request_id)
        return _error_response(request, error)

    @app.middleware("http")
    async def _limit_body(request: Request, call_next: Any) -> Response:
        """Refuse bodies over `limits.max_request_bytes` before reading them."""
        declared = request.headers.get("content-length", "")
        limit = settings.limits.max_request_bytes
        if declared.isdigit() and int(declared) > limit:
            error = PayloadTooLarge(f"Request body is {declared} bytes; the limit is {limit}")
            return _error_response(request, error)
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

    @app.get("/healthz", tags=["ops"])
    async def healthz() -> dict[str, Any]:
        """Liveness: the process answers."""
        return {"success": True, "status": "ok"}

    @app.get("/readyz", tags=["ops"])
    async def readyz() -> JSONResponse:
        """Readiness: Neo4j, Qdrant and the embedder each answer."""
        checks = await _readiness(ref)
        ready = all(check["status"] == "ok" for check in checks.values())
        observe_readiness(checks)
        body = {"success": ready, "status": "ok" if ready else "unavailable", "checks": checks}
        return JSONResponse(body, status_code=200 if ready else 503)

    @app.get("/metrics", tags=["ops"])
    async def metrics() -> Response:
        """Prometheus metrics."""
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    @app.post("/v1/memories", tags=["memories"], status_code=201)
    async def save_memory(
        body: SaveInput, rt: RuntimeDep, who: PrincipalDep, namespace: NamespaceQuery = None
    ) -> JSONResponse:
        """memory_save: 201 when created, 200 when an existing key was updated."""
        who.require("writer")
        rt.memories.require_enabled()
        result = await rt.memories.save(who.namespace_for(namespace), body)
        return JSONResponse(result, status_code=201 if result["created"] else 200)

    @app.get("/v1/memories/{ref}", tags=["memories"])
    async def get_memory(
        ref: str,
        rt: RuntimeDep,
        who: PrincipalDep,
        sortLinks: Annotated[str | None, Query()] = None,
        namespace: NamespaceQuery = None,
    ) -> dict[str, Any]:
        """memory_get of one id or key (404 when missing)."""
        who.require("reader")
        sort = parse_sort_links(sortLinks)
        return await rt.memories.get_one(who.namespace_for(namespace), ref, sort=sort)

    @app.post("/v1/memories/get", tags=["memories"])
    async def get_memories(body: GetBody, rt: RuntimeDep, who: PrincipalDep) -> dict[str, Any]:
        """memory_get: ids and/or keys; unknown ones are listed in `missing`."""
        who.require("reader")
        sort = parse_sort_links(body.sortLinks)
        keys = [*body.keys, *([body.key] if body.key else [])]
        if not body.ids and not keys:
            raise InvalidParameter("memory_get needs 'ids', 'keys' or 'key'")
        return await rt.memories.get(
            who.namespace_for(body.namespace), ids=body.ids, keys=keys, sort=sort
        )

    @app.patch("/v1/memories/{ref}", tags=["memories"])
    async def update_memory(
        ref: str,
        body: UpdateInput,
        rt: RuntimeDep,
        who: PrincipalDep,
        namespace: NamespaceQuery = None,
    ) -> JSONResponse:
        """Partial update (same fields as save); links given are added or updated."""
        who.require("writer")
        return JSONResponse(await rt.memories.update(who.namespace_for(namespace), ref, body))

    @app.delete("/v1/memories/{ref}", tags=["memories"])
    async def delete_memory(
        ref: str, rt: RuntimeDep, who: PrincipalDep, namespace: NamespaceQuery = None
    ) -> dict[str, Any]:
        """memory_delete of one id or key (404 when missing)."""
        who.require("writer")
        ns = who.namespace_for(namespace)
        resolved = await rt.memories.resolve(ns, ids=[ref], keys=[ref])
        if ref not in resolved:
            raise NotFound(f"Memory not found: {ref}")
        return await rt.memories.delete(ns, ids=[resolved[ref]])

    @app.put("/v1/memories/{ref}/links/{target}", tags=["links"])
    async def put_link(
        ref: str,
        target: str,
        rt: RuntimeDep,
        who: PrincipalDep,
        body: LinkBody | None = None,
        namespace: NamespaceQuery = None,
    ) -> dict[str, Any]:
        """memory_link: create or update the link (body: weight, type, term)."""
        who.require("writer")
        link = body or LinkBody()
        return await rt.memories.link(
            who.namespace_for(namespace), ref, target, link.weight, link.type, link.term
        )

    @app.delete("/v1/memories/{ref}/links/{target}", tags=["links"])
    async def delete_link(
        ref: str,
        target: str,
        rt: RuntimeDep,
        who: PrincipalDep,
        type: str = "related",
        namespace: NamespaceQuery = None,
    ) -> dict[str, Any]:
        """memory_link with remove=true."""
        who.require("writer")
        return await rt.memories.link(
            who.namespace_for(namespace), ref, target, link_type=type, remove=True
        )

    @app.post("/v1/retrieve", tags=["search"])
    async def retrieve(body: RetrieveBody, rt: RuntimeDep, who: PrincipalDep) -> JSONResponse:
        """retrieve_context (body = its parameters)."""
        who.require("reader")
        rt.memories.require_enabled()
        params = RetrieveInput.model_validate(body.model_dump(exclude={"namespace"}))
        return JSONResponse(await rt.retrieval.retrieve(who.namespace_for(body.namespace), params))

    if settings.search.enabled:
        _add_search_routes(app)
    app.mount("/", mcp_app)
    return app


class RetrieveBody(RetrieveInput):
    namespace: str | None = None


def _add_search_routes(app: FastAPI) -> None:
    """GET /v1/search and GET /v1/fulltext (absent when search.enabled is false)."""

    @app.get("/v1/search", tags=["search"])
    async def search(
        rt: RuntimeDep,
        who: PrincipalDep,
        query: Annotated[SearchQuery, Query()],
        mode: Annotated[SearchMode, Query()] = "hybrid",
        type: Annotated[list[str] | None, Query()] = None,
        tags: Annotated[list[str] | None, Query()] = None,
        limit: Annotated[Limit, Query()] = 10,
        offset: Annotated[Offset, Query()] = 0,
        sortLinks: Annotated[str | None, Query()] = None,
        namespace: NamespaceQuery = None,
    ) -> JSONResponse:
        """memory_search; `type` and `tags` repeat or take comma-separated values."""
        who.require("reader")
        filters = checked_filters(_split(type), _split(tags))
        result = await rt.retrieval.search(
            who.namespace_for(namespace), query, mode, filters, limit, offset, sortLinks
        )
        return JSONResponse(result)

    @app.get("/v1/fulltext", tags=["search"])
    async def fulltext(
        rt: RuntimeDep,
        who: PrincipalDep,
        keywords: Annotated[str, Query(description="Comma-separated keywords.")],
        operator: Annotated[Operator, Query()] = "OR",
        type: Annotated[list[str] | None, Query()] = None,
        limit: Annotated[Limit, Query()] = 10,
        offset: Annotated[Offset, Query()] = 0,
        sortLinks: Annotated[str | None, Query()] = None,
        namespace: NamespaceQuery = None,
    ) -> JSONResponse:
        """memory_fulltext_search with highlighted excerpts."""
        who.require("reader")
        result = await rt.retrieval.fulltext(
            who.namespace_for(namespace),
            parse_keywords(keywords),
            operator,
            checked_filters(_split(type), ()),
            limit,
            offset,
            sortLinks,
        )
        return JSONResponse(result)


def _split(values: list[str] | None) -> tuple[str, ...]:
    """Repeated and comma-separated query values, blanks dropped."""
    parts = (part.strip() for value in values or [] for part in value.split(","))
    return tuple(dict.fromkeys(part for part in parts if part))


async def _readiness(ref: RuntimeRef) -> dict[str, dict[str, str]]:
    rt = ref.get()
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
        except Exception as exc:
            status = {"status": "error", "error": type(exc).__name__}
        status["ms"] = f"{(time.perf_counter() - started) * 1000:.1f}"
        checks[name] = status
    checks["qdrant"]["engine"] = rt.vectors.engine
    checks["embedder"]["model"] = rt.embedder.model
    return checks


def _error_response(request: Request, error: MnemographError) -> JSONResponse:
    lists = _list_fields(request.url.path)
    return JSONResponse(error_envelope(error, lists), status_code=error.http_status)


def _list_fields(path: str) -> tuple[str, ...]:
    if path.startswith(("/v1/search", "/v1/fulltext", "/v1/retrieve")):
        return ("results",)
    if path == "/v1/memories/get":
        return ("memories", "missing")
    return ()
