"""HTTP routes of links: create or update a link, remove it (memory_link)."""

from __future__ import annotations

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict

from service.api.http.deps import NamespaceQuery, PrincipalDep, RefPath, RuntimeDep, TargetPath
from service.api.http.responses import JSONResponse
from service.api.http.strict_requests import StrictRoute
from service.api.tools import TOOLS
from service.core.models import LinkTypeParam, TermParam, WeightParam
from service.core.results import LinkResult

router = APIRouter(tags=["links"], route_class=StrictRoute)
LINK = TOOLS["memory_link"]


class LinkBody(BaseModel):
    """The link's weight, type and term."""

    model_config = ConfigDict(extra="forbid")

    weight: WeightParam = 0.5
    type: LinkTypeParam = "related"
    term: TermParam = None


@router.put(LINK.path, description=LINK.description, response_model=LinkResult)
async def put_link(
    ref: RefPath,
    target: TargetPath,
    rt: RuntimeDep,
    who: PrincipalDep,
    body: LinkBody | None = None,
    namespace: NamespaceQuery = None,
) -> JSONResponse:
    """memory_link: create or update the link (body: weight, type, term)."""
    who.require("writer")
    link = body or LinkBody()
    return JSONResponse(
        await rt.memories.link(
            who.namespace_for(namespace), ref, target, link.weight, link.type, link.term
        )
    )


@router.delete(LINK.path, description="memory_link with remove=true.", response_model=LinkResult)
async def delete_link(
    ref: RefPath,
    target: TargetPath,
    rt: RuntimeDep,
    who: PrincipalDep,
    type: str = Query("related", description="The type of the link to remove."),
    namespace: NamespaceQuery = None,
) -> JSONResponse:
    """memory_link with remove=true."""
    who.require("writer")
    return JSONResponse(
        await rt.memories.link(
            who.namespace_for(namespace), ref, target, link_type=type, remove=True
        )
    )
