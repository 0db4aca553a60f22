"""The parameter every adapter shares that belongs to no use case: the admin-only namespace."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

NAMESPACE_DESCRIPTION = "Admin keys only: the namespace to act in (default: the key's own)."

NamespaceParam = Annotated[
    str | None, Field(description=NAMESPACE_DESCRIPTION, examples=["team-a"])
]
