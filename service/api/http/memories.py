"""HTTP routes of memories: save, get (one or many), partial update and delete."""

from __future__ import annotations

from fastapi import APIRouter

from service.api.http.deps import (
    NamespaceQuery,
    PrincipalDep,
    RefPath,
    RuntimeDep,
    SortLinksQuery,
)
from service.api.http.responses import JSONResponse
from service.api.http.strict_requests import StrictRoute
from service.api.params import NamespaceParam
from service.api.tools import TOOLS
from service.core.models import SaveInput, UpdateInput
from service.core.results import DeleteResult, GetOneResult, GetResult, SaveResult
from service.core.tool_inputs import GetInput
from service.errors import NotFound

router = APIRouter(tags=["memories"], route_class=StrictRoute)


class GetBody(GetInput):
    """memory_get: ids and/or keys."""

    namespace: NamespaceParam = None


@router.post(
    TOOLS["memory_save"].path,
    status_code=201,
    description=TOOLS["memory_save"].description,
    response_model=SaveResult,
)
async def save_memory(
    body: SaveInput, rt: RuntimeDep, who: PrincipalDep, namespace: NamespaceQuery = None
) -> JSONResponse:
    """memory_save: 201 when created, 200 when an existing key was updated."""
    who.require("writer")
    rt.memories.require_enabled()
    result = await rt.memories.save(who.namespace_for(namespace), body)
    return JSONResponse(result, status_code=201 if result["created"] else 200)


@router.get("/v1/memories/{ref}", response_model=GetOneResult)
async def get_memory(
    ref: RefPath,
    rt: RuntimeDep,
    who: PrincipalDep,
    sortLinks: SortLinksQuery = True,
    namespace: NamespaceQuery = None,
) -> JSONResponse:
    """memory_get of one id or key (404 when missing)."""
    who.require("reader")
    ns = who.namespace_for(namespace)
    return JSONResponse(await rt.memories.get_one(ns, ref, sort=sortLinks))


@router.post(
    TOOLS["memory_get"].path, description=TOOLS["memory_get"].description, response_model=GetResult
)
async def get_memories(body: GetBody, rt: RuntimeDep, who: PrincipalDep) -> JSONResponse:
    """memory_get: ids and/or keys; unknown ones are listed in `missing`."""
    who.require("reader")
    ns = who.namespace_for(body.namespace)
    return JSONResponse(
        await rt.memories.get(ns, ids=body.ids, keys=body.keys, key=body.key, sort=body.sortLinks)
    )


@router.patch("/v1/memories/{ref}", response_model=SaveResult)
async def update_memory(
    ref: RefPath,
    body: UpdateInput,
    rt: RuntimeDep,
    who: PrincipalDep,
    namespace: NamespaceQuery = None,
) -> JSONResponse:
    """Partial update (same fields as save); links given are added or updated."""
    who.require("writer")
    return JSONResponse(await rt.memories.update(who.namespace_for(namespace), ref, body))


@router.delete(
    TOOLS["memory_delete"].path,
    description=TOOLS["memory_delete"].description,
    response_model=DeleteResult,
)
async def delete_memory(
    ref: RefPath, rt: RuntimeDep, who: PrincipalDep, namespace: NamespaceQuery = None
) -> JSONResponse:
    """memory_delete of one id or key (404 when missing)."""
    who.require("writer")
    rt.memories.require_enabled()
    ns = who.namespace_for(namespace)
    resolved = await rt.memories.reader.resolve(ns, ids=[ref], keys=[ref])
    if ref not in resolved:
        raise NotFound(f"Memory not found: {ref}")
    return JSONResponse(await rt.memories.delete(ns, ids=[resolved[ref]]))
