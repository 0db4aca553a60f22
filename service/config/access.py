"""Settings of access to the service: the HTTP listener, API keys, the MCP bridge and the
limits on what one request may ask."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, SecretStr, field_validator
from pydantic_settings import NoDecode

from service.paths import DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT

Role = Literal["reader", "writer", "admin"]
NAMESPACE_PATTERN = r"^[A-Za-z0-9_.-]{1,64}$"


class HttpSettings(BaseModel):
    host: str = Field(default=DEFAULT_HTTP_HOST, description="Address `serve` listens on.")
    port: int = Field(
        default=DEFAULT_HTTP_PORT, ge=1, le=65535, description="Port of the HTTP API and `/mcp`."
    )
    allowed_hosts: list[str] = Field(
        default_factory=list[str],
        description="Host header values accepted besides loopback and `host` (`name:*`: any port).",
    )
    allowed_origins: list[str] = Field(
        default_factory=list[str],
        description="Origin header values accepted besides loopback ones (`origin:*`: any port).",
    )
    cors_origins: list[str] = Field(
        default_factory=list[str], description="Origins CORS allows; empty: CORS off."
    )


class ApiKey(BaseModel):
    key: Annotated[SecretStr, Field(min_length=1)]
    namespace: Annotated[str, Field(pattern=NAMESPACE_PATTERN)]
    role: Role


class AuthSettings(BaseModel):
    api_keys: Annotated[list[ApiKey], NoDecode] = Field(
        default_factory=list[ApiKey],
        description="`key:namespace:role` entries, comma-separated or JSON; empty: auth off.",
    )
    allow_anonymous: bool = Field(
        default=False, description="Allow auth off on a non-loopback address."
    )

    @field_validator("api_keys", mode="before")
    @classmethod
    def _parse_api_keys(cls, value: Any) -> Any:
        """Accept a JSON list or comma-separated `key:namespace:role` entries."""
        if not isinstance(value, str):
            return value
        text = value.strip()
        if not text:
            return []
        entries: list[Any] = json.loads(text) if text.startswith("[") else text.split(",")
        return [_api_key_entry(entry) for entry in entries]

    @field_validator("api_keys")
    @classmethod
    def _distinct_keys(cls, value: list[ApiKey]) -> list[ApiKey]:
        """One key, one namespace and role: a key listed twice is refused."""
        secrets = [entry.key.get_secret_value() for entry in value]
        if len(set(secrets)) != len(secrets):
            raise ValueError("an API key is listed more than once")
        return value


def _api_key_entry(entry: Any) -> Any:
    if not isinstance(entry, str):
        return entry
    parts = entry.strip().split(":")
    if len(parts) != 3:
        raise ValueError("each API key entry must be key:namespace:role")
    return {"key": parts[0], "namespace": parts[1], "role": parts[2]}


class McpSettings(BaseModel):
    tool_prefix: str = Field(
        default="", pattern=r"^[A-Za-z0-9_-]*$", description="Prefix of every MCP tool name."
    )
    api_key: SecretStr = Field(
        default=SecretStr(""),
        description="The key `mnemograph mcp` sends to the server; empty: the first auth key.",
    )


class LimitsSettings(BaseModel):
    max_content_bytes: int = Field(default=100 * 1024, ge=1, description="Largest `content`.")
    max_metadata_bytes: int = Field(default=16 * 1024, ge=1, description="Largest `metadata`.")
    max_request_bytes: int = Field(
        default=2 * 1024 * 1024, ge=1024, description="Largest request body."
    )
    max_links_per_save: int = Field(default=1000, ge=1, description="Links in one save.")
    max_batch: int = Field(default=1000, ge=1, description="Memories in one batch save.")
    max_import_bytes: int = Field(
        default=4 * 1024**3, ge=1024, description="Largest POST /v1/import body (JSON Lines)."
    )
    max_import_line_bytes: int = Field(
        default=1024**2, ge=1024, description="Largest line of an import; longer ones fail alone."
    )
    max_refs: int = Field(default=1000, ge=1, description="ids/keys per get or delete.")
    request_timeout_s: float = Field(default=60.0, gt=0, description="Deadline of one request.")
    rate_per_s: float = Field(
        default=500.0, ge=0, description="Requests per second per key; 0: off."
    )
    rate_burst: int = Field(default=1000, ge=1, description="Requests a key may send at once.")
