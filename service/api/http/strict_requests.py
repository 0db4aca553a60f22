"""Requests read strictly, on every route (`StrictRoute`):
- a query parameter the route does not take is refused, as MCP refuses an unknown argument: a
  misspelt `sortlinks` or `limt` never silently leaves the default in force;
- a JSON body is read with `strict_loads`: plain `json.loads` lets through what the stores fail
  on later (a lone surrogate, NaN, nesting deep enough to exhaust an encoder). The handler gets
  a request whose `json()` raises a JSON decode error for those, which FastAPI answers with a
  400 like any other malformed body."""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute

from service.core.json_text import NotStorableJson, strict_loads
from service.errors import unknown_parameter


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


class StrictRoute(APIRoute):
    """A route that refuses query parameters it does not take and reads JSON bodies strictly."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        known = query_names(self.dependant)

        async def strict(request: Request) -> Response:
            for name, value in request.query_params.multi_items():
                if name not in known:
                    raise unknown_parameter(name, value)
            return await handler(StrictJsonRequest(request.scope, request.receive))

        return strict


def query_names(dependant: Dependant) -> frozenset[str]:
    """The query parameters a route and its dependencies take, as callers spell them."""
    names: set[str] = set()
    pending = [dependant]
    while pending:
        current = pending.pop()
        names.update(field.alias for field in current.query_params)
        pending.extend(current.dependencies)
    return frozenset(names)
