"""Parameters every adapter shares that belong to no use case: the admin-only namespace and the
bound on how many ids and keys one call may name."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from pydantic import Field

from service.config import LimitsSettings
from service.errors import InvalidParameter

NAMESPACE_DESCRIPTION = "Admin keys only: the namespace to act in (default: the key's own)."

NamespaceParam = Annotated[
    str | None, Field(description=NAMESPACE_DESCRIPTION, examples=["team-a"])
]


def check_refs(limits: LimitsSettings, ids: Sequence[str], keys: Sequence[str]) -> None:
    """At most `limits.max_refs` ids and keys together in one get or delete."""
    count = len(ids) + len(keys)
    if count > limits.max_refs:
        raise InvalidParameter(
            f"Invalid ids/keys value: {count} given; at most {limits.max_refs} "
            "(limits.max_refs) per call"
        )
