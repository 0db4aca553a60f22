"""HTTP routes of a namespace's lifecycle: the timeline around a memory, stats and cleanup
(the twins of memory_timeline, memory_stats and memory_cleanup)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from service.api.http.deps import (
    NamespaceQuery,
    PrincipalDep,
    RefPath,
    RuntimeDep,
    SortLinksQuery,
)
from service.api.http.responses import JSONResponse
from service.api.http.strict_requests import StrictRoute
from service.api.tools import TOOLS
from service.core.results import CleanupResult, StatsResult, TimelineResult
from service.core.tool_inputs import CleanupInput
from service.core.upkeep.lifecycle import WINDOW_DESCRIPTION, Window

router = APIRouter(tags=["lifecycle"], route_class=StrictRoute)


@router.get(
    TOOLS["memory_timeline"].path,
    description=TOOLS["memory_timeline"].description,
    response_model=TimelineResult,
)
async def timeline(
    ref: RefPath,
    rt: RuntimeDep,
    who: PrincipalDep,
    window: Annotated[Window, Query(description=WINDOW_DESCRIPTION)] = 5,
    sortLinks: SortLinksQuery = True,
    namespace: NamespaceQuery = None,
) -> JSONResponse:
    """memory_timeline around one id or key (404 when it does not exist)."""
    who.require("reader")
    rt.memories.require_enabled()
    ns = who.namespace_for(namespace)
    result = await rt.memories.lifecycle.timeline(ns, ref, window, sortLinks)
    return JSONResponse(result)


@router.get(
    TOOLS["memory_stats"].path,
    description=TOOLS["memory_stats"].description,
    response_model=StatsResult,
)
async def stats(
    rt: RuntimeDep, who: PrincipalDep, namespace: NamespaceQuery = None
) -> JSONResponse:
    """memory_stats of the caller's namespace."""
    who.require("reader")
    rt.memories.require_enabled()
    return JSONResponse(await rt.memories.lifecycle.stats(who.namespace_for(namespace)))


@router.post(
    TOOLS["memory_cleanup"].path,
    description=TOOLS["memory_cleanup"].description,
    response_model=CleanupResult,
)
async def cleanup(
    rt: RuntimeDep,
    who: PrincipalDep,
    body: CleanupInput | None = None,
    namespace: NamespaceQuery = None,
) -> JSONResponse:
    """memory_cleanup (body `{force, dry_run}`, both optional)."""
    who.require("writer")
    rt.memories.require_enabled()
    params = body or CleanupInput()
    result = await rt.memories.lifecycle.cleanup(
        who.namespace_for(namespace), force=params.force, dry_run=params.dry_run
    )
    return JSONResponse(result)
