"""HTTP route of batch saves: POST /v1/memories/batch, many memory_save bodies in one request
(HTTP only, no tool twin), answered with one result per item."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from service.api.http.deps import NamespaceQuery, PrincipalDep, RuntimeDep
from service.api.http.responses import JSONResponse
from service.api.http.strict_requests import StrictRoute
from service.api.tools import BATCH_PATH
from service.core.results import BatchResult

router = APIRouter(tags=["memories"], route_class=StrictRoute)


class BatchBody(BaseModel):
    """POST /v1/memories/batch: many memory_save bodies."""

    model_config = ConfigDict(extra="forbid")

    memories: list[Any] = Field(
        description="memory_save bodies (the fields of POST /v1/memories), 1 to "
        "limits.max_batch (1,000). Each is validated and reported alone; links may name "
        "memories saved earlier in the same batch.",
        json_schema_extra={"items": {"$ref": "#/components/schemas/SaveInput"}},
    )


@router.post(BATCH_PATH, response_model=BatchResult)
async def save_memories(
    body: BatchBody, rt: RuntimeDep, who: PrincipalDep, namespace: NamespaceQuery = None
) -> JSONResponse:
    """Many memory_save at once, embedded and written in batches: `{success, results, saved,
    failed}` with one result per item in the order given: `{index, success: true, id, key,
    created}`, or `{index, success: false, error_type, message, error, id: null, key}`."""
    who.require("writer")
    rt.memories.require_enabled()

    async def cleanup(ns: str, keep: Sequence[str]) -> object:  # over budget: LRU down to 85%
        return await rt.memories.lifecycle.cleanup(ns, keep=keep)

    ns = who.namespace_for(namespace)
    return JSONResponse(await rt.batch.save(ns, body.memories, cleanup))
