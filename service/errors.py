"""The error tree of Mnemograph and the envelope of docs/contract.md §2.

Every failure a user can see is a `MnemographError`; `error_envelope` turns it into JSON.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Sequence
from typing import Any, ClassVar


class MnemographError(Exception):
    """Base of all errors that reach a client, with its `error_type` and HTTP status."""

    error_type: ClassVar[str] = "internal"
    http_status: ClassVar[int] = 500

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidParameter(MnemographError):
    error_type = "invalid_parameter"
    http_status = 400


class NotFound(MnemographError):
    error_type = "not_found"
    http_status = 404


class Conflict(MnemographError):
    error_type = "conflict"
    http_status = 409


class PayloadTooLarge(MnemographError):
    error_type = "payload_too_large"
    http_status = 413


class Unauthorized(MnemographError):
    error_type = "unauthorized"
    http_status = 401


class Forbidden(MnemographError):
    error_type = "forbidden"
    http_status = 403


class RateLimited(MnemographError):
    """The caller sent more requests than its key may; `retry_after_s` says when to retry."""

    error_type = "rate_limited"
    http_status = 429

    def __init__(self, retry_after_s: int) -> None:
        super().__init__(f"Too many requests for this key; retry after {retry_after_s} s")
        self.retry_after_s = retry_after_s


class MemoryDisabled(MnemographError):
    error_type = "memory_disabled"
    http_status = 503


class BackendUnavailable(MnemographError):
    """A store or the embedder did not answer (after retries where retries make sense)."""

    error_type = "backend_unavailable"
    http_status = 503

    def __init__(self, backend: str, detail: str = "") -> None:
        suffix = f": {detail}" if detail else ""
        super().__init__(f"{backend} is unavailable{suffix}")
        self.backend = backend
        self.detail = detail


class RequestTimeout(BackendUnavailable):
    """A request that found no answer within `limits.request_timeout_s`."""

    def __init__(self, timeout_s: float) -> None:
        super().__init__(
            "the service", f"no answer within {timeout_s:g} s (limits.request_timeout_s)"
        )


def new_request_id() -> str:
    """A request's id: 12 random hex digits."""
    return uuid.uuid4().hex[:12]


class InternalError(MnemographError):
    """A bug: the message carries a request id and never a stack trace."""

    def __init__(self, request_id: str | None = None) -> None:
        self.request_id = request_id or new_request_id()
        super().__init__(f"Internal error (request id {self.request_id})")


def error_envelope(error: MnemographError, empty_lists: Sequence[str] = ()) -> dict[str, Any]:
    """The failure JSON of docs/contract.md §2, with the tool's list fields added empty."""
    envelope: dict[str, Any] = {
        "success": False,
        "error_type": error.error_type,
        "message": error.message,
        "error": error.message,
    }
    for name in empty_lists:
        envelope[name] = []
    return envelope


# The error type of a validator whose whole message is fixed by the seeds (§2, `sortLinks`):
# reported as it stands, and only when nothing else in the call is wrong.
SEEDED_MESSAGE = "seeded_message"


def invalid_from_validation(errors: Sequence[Any]) -> InvalidParameter:
    """Pydantic validation errors as one `InvalidParameter` naming the first bad parameter (a
    seeded message last)."""
    first = next((error for error in errors if error.get("type") != SEEDED_MESSAGE), errors[0])
    if first.get("type") == SEEDED_MESSAGE:
        return InvalidParameter(str(first.get("msg")))
    if first.get("type") == "json_invalid":
        context: dict[str, Any] = first.get("ctx") or {}
        reason = context.get("error")
        detail = f" ({reason})" if reason else ""
        return InvalidParameter(f"Invalid request body: {first.get('msg', 'not JSON')}{detail}")
    location = tuple(first.get("loc", ()))
    value = first.get("input")
    if location == ("body",) and (first.get("type") == "missing" or isinstance(value, bytes)):
        return InvalidParameter(
            "Invalid request body: must be a JSON object, sent as application/json"
        )
    name = ".".join(parameter_path(location)) or "request"
    if first.get("type") == "missing":
        return InvalidParameter(f"Missing required parameter '{name}'")
    if first.get("type") in _NUMERIC_BOUNDS and isinstance(value, str):
        value = _as_number(value)
    return InvalidParameter(
        f"Invalid {name} value: {shown_value(value)}. {first.get('msg', 'Invalid value')}"
    )


def unknown_parameter(name: str, value: object) -> InvalidParameter:
    """A parameter the tool does not take, refused by name on either transport (never ignored:
    a misspelt `sortlinks` must not quietly leave the default in force)."""
    return InvalidParameter(
        f"Invalid {name} value: {shown_value(value)}. Extra inputs are not permitted"
    )


def shown_value(value: object) -> str:
    """A rejected value as an error message shows it: its repr (true, false and null as JSON
    spells them), cut to 80 characters."""
    shown = json.dumps(value) if value is None or isinstance(value, bool) else repr(value)
    return shown if len(shown) <= 80 else shown[:77] + "..."


def parameter_path(location: Sequence[Any]) -> list[str]:
    """The parameter's path in a validation error's location: without the HTTP source in front
    (body, query, path, header) and without pydantic's names of union branches and validators
    (`constrained-str`, `list[str]`), so `query` stays the name of a parameter called query."""
    parts = list(location)
    if len(parts) > 1 and parts[0] in _HTTP_SOURCES:
        parts = parts[1:]
    elif parts and parts[0] == "body":
        parts = []
    return [str(part) for part in parts if isinstance(part, int) or _NAME.fullmatch(str(part))]


_HTTP_SOURCES = {"body", "query", "path", "header", "cookie"}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# Bound errors are about numbers; a query-string "0" is shown as 0, like a JSON 0.
_NUMERIC_BOUNDS = {"greater_than", "greater_than_equal", "less_than", "less_than_equal"}


def _as_number(text: str) -> object:
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            continue
    return text
