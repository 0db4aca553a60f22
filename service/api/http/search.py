"""HTTP routes of recall: retrieve_context always; memory_search and memory_fulltext_search
only when search is enabled (seed 002). Parameter descriptions come from the input models."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel

from service.api.http.deps import (
    NamespaceQuery,
    PrincipalDep,
    RuntimeDep,
    SortLinksQuery,
    split_values,
)
from service.api.http.responses import JSONResponse
from service.api.http.strict_requests import StrictRoute
from service.api.params import NamespaceParam
from service.api.tools import TOOLS
from service.core.results import ContextResult, FulltextResult, SearchResult
from service.core.scalars import Flag
from service.core.search_inputs import (
    FulltextInput,
    Limit,
    Offset,
    Operator,
    RetrieveInput,
    SearchInput,
    SearchMode,
    checked_filters,
)
from service.core.search_inputs import Query as QueryText

router = APIRouter(tags=["search"], route_class=StrictRoute)
search_router = APIRouter(tags=["search"], route_class=StrictRoute)


def described(model: type[BaseModel], field: str) -> str | None:
    """A field's description, so a query parameter is described where its model is."""
    return model.model_fields[field].description


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
async def search(
    rt: RuntimeDep,
    who: PrincipalDep,
    query: Annotated[QueryText, Query(description=described(SearchInput, "query"))],
    mode: Annotated[SearchMode, Query(description=described(SearchInput, "mode"))] = "hybrid",
    type: Annotated[list[str] | None, Query(description=described(SearchInput, "type"))] = None,
    tags: Annotated[list[str] | None, Query(description=described(SearchInput, "tags"))] = None,
    limit: Annotated[Limit, Query(description=described(SearchInput, "limit"))] = 10,
    offset: Annotated[Offset, Query(description=described(SearchInput, "offset"))] = 0,
    sortLinks: SortLinksQuery = True,
    include_superseded: Annotated[
        Flag, Query(description=described(SearchInput, "include_superseded"))
    ] = False,
    namespace: NamespaceQuery = None,
) -> JSONResponse:
    """memory_search; `type` and `tags` repeat or take comma-separated values."""
    who.require("reader")
    filters = checked_filters(split_values(type), split_values(tags))
    params = SearchInput(
        query=query,
        mode=mode,
        type=list(filters.types) or None,
        tags=list(filters.tags) or None,
        limit=limit,
        offset=offset,
        sortLinks=sortLinks,
        include_superseded=include_superseded,
    )
    return JSONResponse(await rt.retrieval.search(who.namespace_for(namespace), params))


@search_router.get(
    TOOLS["memory_fulltext_search"].path,
    description=TOOLS["memory_fulltext_search"].description,
    response_model=FulltextResult,
)
async def fulltext(
    rt: RuntimeDep,
    who: PrincipalDep,
    keywords: Annotated[str, Query(description=described(FulltextInput, "keywords"))],
    operator: Annotated[Operator, Query(description=described(FulltextInput, "operator"))] = "OR",
    type: Annotated[list[str] | None, Query(description=described(FulltextInput, "type"))] = None,
    limit: Annotated[Limit, Query(description=described(FulltextInput, "limit"))] = 10,
    offset: Annotated[Offset, Query(description=described(FulltextInput, "offset"))] = 0,
    sortLinks: SortLinksQuery = True,
    include_superseded: Annotated[
        Flag, Query(description=described(FulltextInput, "include_superseded"))
    ] = False,
    namespace: NamespaceQuery = None,
) -> JSONResponse:
    """memory_fulltext_search with highlighted excerpts."""
    who.require("reader")
    filters = checked_filters(split_values(type), ())
    params = FulltextInput(
        keywords=keywords,
        operator=operator,
        type=list(filters.types) or None,
        limit=limit,
        offset=offset,
        sortLinks=sortLinks,
        include_superseded=include_superseded,
    )
    return JSONResponse(await rt.retrieval.fulltext(who.namespace_for(namespace), params))
