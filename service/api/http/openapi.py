"""The OpenAPI document as the server behaves: every `/v1` route documents the §2 envelope for
each failure status it may answer (FastAPI's 422, which this server never sends, is dropped),
and the request bodies state the configured limits."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel, ConfigDict, Field

from service.api.limits_schema import state_limits
from service.config import LimitsSettings

ERROR_STATUSES = {
    "400": "Invalid parameter (or 405: a method the route does not have).",
    "401": "Missing or invalid API key.",
    "403": "Role or namespace not allowed, or a Host/Origin not accepted.",
    "404": "Unknown id or key.",
    "409": "Key taken by another memory.",
    "413": "Over a size limit.",
    "429": "Over the key's rate limit; Retry-After says when to retry.",
    "500": "A bug; the message carries a request id.",
    "503": "Memory disabled, a backend unavailable, or past the request deadline.",
}
ErrorType = Literal[
    "invalid_parameter",
    "not_found",
    "conflict",
    "payload_too_large",
    "unauthorized",
    "forbidden",
    "rate_limited",
    "memory_disabled",
    "backend_unavailable",
    "internal",
]


class ErrorEnvelope(BaseModel):
    """The failure of docs/contract.md §2 (a tool's list fields come along, empty)."""

    model_config = ConfigDict(extra="allow")

    success: Literal[False]
    error_type: ErrorType
    message: str
    error: str = Field(description="The message again (rulebook clients read `error`).")


def install_openapi(app: FastAPI, limits: LimitsSettings) -> None:
    """Replace the app's OpenAPI builder with one that documents the error envelope and the
    configured limits."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title,
                version=app.version,
                description=app.description,
                routes=app.routes,
            )
            app.openapi_schema = with_limits(with_errors(schema), limits)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def with_errors(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with 422 replaced by the statuses this server answers, each the envelope."""
    envelope = {"$ref": "#/components/schemas/ErrorEnvelope"}
    for path, operations in schema["paths"].items():
        for operation in operations.values():
            responses: dict[str, Any] = operation["responses"]
            responses.pop("422", None)
            if "201" in responses:
                responses["200"] = {**responses["201"], "description": "Updated"}
            if path == "/readyz":
                responses["503"] = {"description": "A backend is not ready."}
            if path.startswith("/v1/"):
                for status, description in ERROR_STATUSES.items():
                    content = {"application/json": {"schema": envelope}}
                    responses[status] = {"description": description, "content": content}
    schemas: dict[str, Any] = schema.setdefault("components", {}).setdefault("schemas", {})
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)
    schemas["ErrorEnvelope"] = ErrorEnvelope.model_json_schema(
        ref_template="#/components/schemas/{model}"
    )
    return schema


def with_limits(schema: dict[str, Any], limits: LimitsSettings) -> dict[str, Any]:
    """`schema` with the configured limits in every request body's model."""
    components: dict[str, Any] = schema["components"]["schemas"]
    for operations in schema["paths"].values():
        for operation in operations.values():
            content: dict[str, Any] = operation.get("requestBody", {}).get("content", {})
            body: dict[str, Any] = content.get("application/json", {}).get("schema", {})
            ref = str(body.get("$ref", ""))
            if ref:
                model: dict[str, Any] = components[ref.rsplit("/", 1)[-1]]
                state_limits(model.get("properties", {}), limits)
    return schema
