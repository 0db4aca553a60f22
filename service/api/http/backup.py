"""HTTP routes of backup and restore (HTTP only, no tool twin): GET /v1/export streams a
namespace as JSON Lines, POST /v1/import restores such a stream and reports per line."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse

from service.api.http.deps import NamespaceQuery, PrincipalDep, RuntimeDep
from service.api.http.responses import JSONResponse
from service.api.http.strict_requests import StrictRoute
from service.api.tools import EXPORT_PATH, IMPORT_PATH
from service.core.jsonl import numbered_lines
from service.core.results import ImportResult
from service.core.upkeep.backup import export_lines
from service.core.upkeep.backup import restore as restore_lines
from service.errors import PayloadTooLarge

router = APIRouter(tags=["backup"], route_class=StrictRoute)
JSON_LINES = {"type": "string", "description": "JSON Lines: one JSON object per line."}


@router.get(
    EXPORT_PATH,
    response_class=StreamingResponse,
    responses={200: {"content": {"application/x-ndjson": {"schema": JSON_LINES}}}},
)
async def export(
    rt: RuntimeDep, who: PrincipalDep, namespace: NamespaceQuery = None
) -> StreamingResponse:
    """The namespace as JSON Lines: a header, every memory with all its fields and timestamps
    (created_at, id order), every link (each source's creation order), and an end line with the
    counts. No vectors: an import re-embeds. Streamed in pages; memory use stays flat."""
    who.require("reader")
    rt.memories.require_enabled()
    ns = who.namespace_for(namespace)

    async def body() -> AsyncIterator[bytes]:
        async for line in export_lines(rt.graph, ns):
            yield (json_line(line) + "\n").encode("utf-8")

    filename = f"mnemograph-{ns}.jsonl"
    return StreamingResponse(
        body(),
        media_type="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


# Line breaks JSON leaves raw in strings, at which readers that split on every Unicode line
# break (str.splitlines, many JSON Lines tools) would cut a memory's line in two.
_RAW_BREAKS = str.maketrans({"\u0085": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def json_line(value: object) -> str:
    """One JSON Lines record: UTF-8 text kept, every line break inside escaped."""
    return json.dumps(value, ensure_ascii=False).translate(_RAW_BREAKS)


@router.post(IMPORT_PATH, response_model=ImportResult)
async def restore(
    request: Request, rt: RuntimeDep, who: PrincipalDep, namespace: NamespaceQuery = None
) -> JSONResponse:
    """Restore an export (the body, JSON Lines, streamed) into the namespace: `{success,
    memories: {created, updated}, links, superseded, failed, complete, errors: [{line,
    error_type, message}], errors_listed}`. Idempotent; a bad line fails alone; `complete` says
    whether the end line was read. Links must follow the memories they join (an export's do)."""
    who.require("writer")
    rt.memories.require_enabled()
    limits = rt.settings.limits
    lines = numbered_lines(_bounded(request, limits.max_import_bytes), limits.max_import_line_bytes)
    report = await restore_lines(rt.batch, who.namespace_for(namespace), lines)
    return JSONResponse(report.as_dict())


async def _bounded(request: Request, limit: int) -> AsyncIterator[bytes]:
    """The request body as it arrives, refused once it passes `limit` bytes."""
    received = 0
    async for chunk in request.stream():
        received += len(chunk)
        if received > limit:
            raise PayloadTooLarge(
                f"Import body is over {limit} bytes (limits.max_import_bytes); the lines "
                "before the limit were imported (an import is idempotent)"
            )
        yield chunk
