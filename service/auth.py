"""API keys, roles and namespaces (docs/contract.md §6): who calls, and where their memories live.

With no keys configured auth is off and every caller is an admin of the `default` namespace.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import SecretStr

from service.config import NAMESPACE_PATTERN, AuthSettings, Role
from service.errors import Forbidden, InvalidParameter, Unauthorized

DEFAULT_NAMESPACE = "default"
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
    """Maps `Authorization: Bearer <key>` or `X-API-Key` to a `Principal`. Keys are kept and
    compared as SHA-256 digests, every one of them on every call, so the time taken tells
    nothing about which key or how much of it matched."""

    def __init__(self, settings: AuthSettings, stdio_key: SecretStr | None = None) -> None:
        self._keys = [
            (_digest(entry.key.get_secret_value()), Principal(entry.namespace, entry.role))
            for entry in settings.api_keys
        ]
        chosen = stdio_key.get_secret_value() if stdio_key else ""
        first = settings.api_keys[0].key.get_secret_value() if settings.api_keys else ""
        self._stdio_key = chosen or first

    @property
    def enabled(self) -> bool:
        return bool(self._keys)

    def authenticate(self, headers: Mapping[str, str]) -> Principal:
        if not self._keys:
            return Principal(DEFAULT_NAMESPACE, "admin")
        presented = presented_key(headers)
        if presented is None:
            raise Unauthorized("Missing API key: send 'Authorization: Bearer <key>' or 'X-API-Key'")
        candidate = _digest(presented)
        found: Principal | None = None
        for key, principal in self._keys:
            if hmac.compare_digest(key, candidate):
                found = principal
        if found is None:
            raise Unauthorized("Invalid API key")
        return found

    def stdio_principal(self) -> Principal:
        """The caller of the in-process stdio transport (`mnemograph mcp --embedded`): the key
        `MNEMO_MCP__API_KEY` names (else the first key), as the bridge sends it to the daemon."""
        if not self._keys:
            return Principal(DEFAULT_NAMESPACE, "admin")
        return self.authenticate({"authorization": f"Bearer {self._stdio_key}"})


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode()).digest()


def presented_key(headers: Mapping[str, str]) -> str | None:
    """The key a request carries (Bearer first, then X-API-Key), or None."""
    lowered = {name.lower(): value for name, value in headers.items()}
    authorization = lowered.get("authorization", "")
    if authorization.lower().startswith("bearer "):
        return authorization[7:].strip() or None
    return lowered.get("x-api-key") or None
