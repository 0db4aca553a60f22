"""API keys, roles and namespaces (docs/contract.md §6): who calls, and where their memories live.

With no keys configured auth is off and every caller is an admin of the `default` namespace.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Mapping
from dataclasses import dataclass

from service.config import AuthSettings, Role
from service.core.errors import Forbidden, InvalidParameter, Unauthorized

DEFAULT_NAMESPACE = "default"
NAMESPACE_PATTERN = r"^[A-Za-z0-9_.-]{1,64}$"
_ROLE_RANK: dict[Role, int] = {"reader": 0, "writer": 1, "admin": 2}


@dataclass(frozen=True)
class Principal:
    namespace: str
    role: Role

    def require(self, role: Role) -> None:
        if _ROLE_RANK[self.role] < _ROLE_RANK[role]:
            raise Forbidden(f"This operation needs the '{role}' role; the key has '{self.role}'")

    def namespace_for(self, requested: str | None) -> str:
        """The namespace of a call: the key's own, or any namespace for an admin key."""
        if requested is None or requested == self.namespace:
            return self.namespace
        if self.role != "admin":
            raise Forbidden("Only admin keys may choose the namespace")
        if not _valid_namespace(requested):
            raise InvalidParameter(
                f"Invalid namespace value: '{requested}'. Must match {NAMESPACE_PATTERN}"
            )
        return requested


def _valid_namespace(name: str) -> bool:
    return re.fullmatch(NAMESPACE_PATTERN, name) is not None


class Authenticator:
    """Maps `Authorization: Bearer <key>` or `X-API-Key` to a `Principal`."""

    def __init__(self, settings: AuthSettings) -> None:
        self._keys = [
            (entry.key.get_secret_value().encode(), Principal(entry.namespace, entry.role))
            for entry in settings.api_keys
        ]

    @property
    def enabled(self) -> bool:
        return bool(self._keys)

    def authenticate(self, headers: Mapping[str, str]) -> Principal:
        if not self._keys:
            return Principal(DEFAULT_NAMESPACE, "admin")
        presented = _presented_key(headers)
        if presented is None:
            raise Unauthorized("Missing API key: send 'Authorization: Bearer <key>' or 'X-API-Key'")
        candidate = presented.encode()
        for key, principal in self._keys:
            if hmac.compare_digest(key, candidate):
                return principal
        raise Unauthorized("Invalid API key")


def _presented_key(headers: Mapping[str, str]) -> str | None:
    lowered = {name.lower(): value for name, value in headers.items()}
    authorization = lowered.get("authorization", "")
    if authorization.lower().startswith("bearer "):
        return authorization[7:].strip() or None
    return lowered.get("x-api-key") or None


def local_principal() -> Principal:
    """The caller of the stdio transport: the local user, admin of `default`."""
    return Principal(DEFAULT_NAMESPACE, "admin")
