"""What every HTTP route shares: the runtime and the caller as FastAPI dependencies, the
admin-only namespace query parameter, and repeated-or-comma-separated query values."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path, Query, Request

from service.api.params import NAMESPACE_DESCRIPTION
from service.app import Runtime, RuntimeRef
from service.auth import Principal
from service.core.sorting import SORT_LINKS_DESCRIPTION, SortLinks


# The dependencies are coroutines, though they never wait: FastAPI runs a plain function in its
# thread pool, a hop there and back (memory_get over HTTP took 3.7-4.4 ms of the service's CPU
# with these two plain, 3.5-3.7 as coroutines).
async def _runtime(request: Request) -> Runtime:
    ref: RuntimeRef = request.app.state.runtime_ref
    return ref.get()


async def _principal(request: Request, rt: Annotated[Runtime, Depends(_runtime)]) -> Principal:
    return rt.authenticator.authenticate(request.headers)


RuntimeDep = Annotated[Runtime, Depends(_runtime)]
PrincipalDep = Annotated[Principal, Depends(_principal)]
NamespaceQuery = Annotated[str | None, Query(description=NAMESPACE_DESCRIPTION)]
SortLinksQuery = Annotated[SortLinks, Query(description=SORT_LINKS_DESCRIPTION)]


RefPath = Annotated[str, Path(description="The memory's id or key.")]
TargetPath = Annotated[str, Path(description="The link target's id or key.")]


def split_values(values: list[str] | None) -> tuple[str, ...]:
    """Repeated and comma-separated query values, blanks dropped."""
    parts = (part.strip() for value in values or [] for part in value.split(","))
    return tuple(dict.fromkeys(part for part in parts if part))
