"""Request bodies read with `strict_loads`: FastAPI reads a JSON body with `Request.json()`, and
plain `json.loads` lets through what the stores fail on later (a lone surrogate, NaN, nesting
deep enough to exhaust an encoder). Every router uses `StrictJsonRoute`, whose handler gets a
request that raises a JSON decode error for those, which FastAPI turns into a 400 like any
other malformed body."""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute

from service.core.json_text import NotStorableJson, strict_loads


class StrictJsonRequest(Request):
    """A request whose JSON body is read with `strict_loads`."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            try:
                self._json = strict_loads(body)
            except NotStorableJson as exc:
                raise json.JSONDecodeError(str(exc), body.decode("utf-8", "replace"), 0) from None
        return self._json


class StrictJsonRoute(APIRoute):
    """A route whose handler reads JSON bodies strictly."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            return await handler(StrictJsonRequest(request.scope, request.receive))

        return strict
