"""HTTP routes of recall: retrieve_context always; memory_search and memory_fulltext_search
only when search is enabled (seed 002), their query parameters taken from the input models."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter

from service.api.http.deps import PrincipalDep, RuntimeDep
from service.api.http.responses import JSONResponse
from service.api.http.strict_requests import StrictRoute
from service.api.http.tool_query import ToolQuery, tool_query
from service.api.params import NamespaceParam
from service.api.tools import TOOLS
from service.core.results import ContextResult, FulltextResult, SearchResult
from service.core.search_inputs import FulltextInput, RetrieveInput, SearchInput

router = APIRouter(tags=["search"], route_class=StrictRoute)
search_router = APIRouter(tags=["search"], route_class=StrictRoute)
SearchQuery = Annotated[ToolQuery[SearchInput], tool_query(SearchInput)]
FulltextQuery = Annotated[ToolQuery[FulltextInput], tool_query(FulltextInput)]


class RetrieveBody(RetrieveInput):
    namespace: NamespaceParam = None


@router.post(
    TOOLS["retrieve_context"].path,
    description=TOOLS["retrieve_context"].description,
    response_model=ContextResult,
)
async def retrieve(body: RetrieveBody, rt: RuntimeDep, who: PrincipalDep) -> JSONResponse:
    """retrieve_context (body = its parameters)."""
    who.require("reader")
    rt.memories.require_enabled()
    params = RetrieveInput.model_validate(body.model_dump(exclude={"namespace"}))
    return JSONResponse(await rt.retrieval.retrieve(who.namespace_for(body.namespace), params))


@search_router.get(
    TOOLS["memory_search"].path,
    description=TOOLS["memory_search"].description,
    response_model=SearchResult,
)
async def search(rt: RuntimeDep, who: PrincipalDep, call: SearchQuery) -> JSONResponse:
    """memory_search; `type` and `tags` repeat or take comma-separated values."""
    who.require("reader")
    return JSONResponse(await rt.retrieval.search(who.namespace_for(call.namespace), call.params))


@search_router.get(
    TOOLS["memory_fulltext_search"].path,
    description=TOOLS["memory_fulltext_search"].description,
    response_model=FulltextResult,
)
async def fulltext(rt: RuntimeDep, who: PrincipalDep, call: FulltextQuery) -> JSONResponse:
    """memory_fulltext_search with highlighted excerpts."""
    who.require("reader")
    namespace = who.namespace_for(call.namespace)
    return JSONResponse(await rt.retrieval.fulltext(namespace, call.params))
