"""ASGI guards in front of every route, `/mcp` included: the request id, Host and Origin checks,
the per-key rate limit, the key on the MCP transport, the body limit and the request deadline.
Each refusal is the §2 envelope."""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Collection, Mapping, Sequence

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.api.http.responses import JSONResponse
from service.api.metrics import ERRORS
from service.api.ratelimit import RateLimiter, retry_after
from service.api.tools import list_fields_for_path
from service.auth import Authenticator, presented_key
from service.config import HttpSettings
from service.errors import (
    Forbidden,
    InternalError,
    MnemographError,
    PayloadTooLarge,
    RateLimited,
    RequestTimeout,
    Unauthorized,
    error_envelope,
    new_request_id,
)
from service.logs import REQUEST_ID

log = logging.getLogger(__name__)
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
WILDCARD_HOSTS = ("", "0.0.0.0", "::")
OPS_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})
MCP_PATH = "/mcp"


async def refuse(
    scope: Scope, send: Send, error: MnemographError, headers: Mapping[str, str] | None = None
) -> None:
    """Answer with the envelope of `error` (the route's list fields added empty)."""
    lists = list_fields_for_path(scope.get("path", ""), scope.get("method", ""))
    body = error_envelope(error, lists)
    ERRORS.labels("http", error.error_type).inc()
    response = JSONResponse(body, status_code=error.http_status, headers=headers)
    await response(scope, _no_body, send)


async def _no_body() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


def allowed(value: str, patterns: Sequence[str]) -> bool:
    """`value` equals a pattern, or a `name:*` pattern with any port."""
    for pattern in patterns:
        if value == pattern:
            return True
        if pattern.endswith(":*"):
            base, _, port = value.rpartition(":")
            if base == pattern[:-2] and port.isascii() and port.isdigit():
                return True
    return False


def transport_patterns(settings: HttpSettings) -> tuple[list[str], list[str]]:
    """Accepted Host and Origin values: loopback, the configured host, and the settings' own."""
    names: list[str] = list(LOOPBACK_NAMES)
    if settings.host not in WILDCARD_HOSTS:
        names.append(f"[{settings.host}]" if ":" in settings.host else settings.host)
    hosts = [*names, *(f"{name}:*" for name in names), *settings.allowed_hosts]
    origins = [
        *(
            f"{scheme}://{name}{port}"
            for scheme in ("http", "https")
            for name in names
            for port in ("", ":*")
        ),
        *settings.allowed_origins,
        *settings.cors_origins,
    ]
    return hosts, origins


class RequestId:
    """Gives each request an id: in its log lines, its `X-Request-ID` header and the message of
    an internal error, which is answered here (500, the envelope, no stack trace)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        request_id = new_request_id()
        token = REQUEST_ID.set(request_id)
        started = False

        async def stamped(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = [*message.get("headers", []), (b"x-request-id", request_id.encode())]
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, stamped)
        except Exception:
            log.exception("request %s failed (request id %s)", scope.get("path"), request_id)
            if started:
                raise
            await refuse(scope, stamped, InternalError(request_id))
        finally:
            REQUEST_ID.reset(token)


class HostGuard:
    """Refuses a Host or Origin it does not know (DNS rebinding, cross-site requests); the
    probes, which carry no memory, answer any host (container and cluster health checks)."""

    def __init__(self, app: ASGIApp, hosts: Sequence[str], origins: Sequence[str]) -> None:
        self.app, self.hosts, self.origins = app, hosts, origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] not in OPS_PATHS:
            headers = Headers(scope=scope)
            host = headers.get("host", "")
            origin = headers.get("origin")
            if not allowed(host, self.hosts):
                message = f"Host '{host[:100]}' is not allowed: add it to MNEMO_HTTP__ALLOWED_HOSTS"
                return await refuse(scope, send, Forbidden(message))
            if origin is not None and not allowed(origin, self.origins):
                message = (
                    f"Origin '{origin[:100]}' is not allowed: add it to MNEMO_HTTP__ALLOWED_ORIGINS"
                )
                return await refuse(scope, send, Forbidden(message))
        await self.app(scope, receive, send)


class RateGuard:
    """The per-key rate limit (by client address when no key is sent); probes are exempt."""

    def __init__(self, app: ASGIApp, limiter: RateLimiter) -> None:
        self.app, self.limiter = app, limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] not in OPS_PATHS:
            wait = self.limiter.acquire(caller(scope))
            if wait > 0:
                error = RateLimited(retry_after(wait))
                headers = {"Retry-After": str(error.retry_after_s)}
                return await refuse(scope, send, error, headers)
        await self.app(scope, receive, send)


def caller(scope: Scope) -> str:
    """Who a request counts against: a digest of its key, else its client address."""
    key = presented_key(Headers(scope=scope))
    if key is not None:
        return "key:" + hashlib.sha256(key.encode()).hexdigest()[:32]
    client = scope.get("client")
    return f"addr:{client[0] if client else ''}"


class McpAuthGuard:
    """The MCP transport needs a valid key before any message (initialize and tools/list too)."""

    def __init__(self, app: ASGIApp, authenticator: Authenticator) -> None:
        self.app, self.authenticator = app, authenticator

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope.get("path", "")
        if scope["type"] == "http" and self.authenticator.enabled and path.startswith(MCP_PATH):
            try:
                self.authenticator.authenticate(Headers(scope=scope))
            except Unauthorized as error:
                return await refuse(scope, send, error, {"WWW-Authenticate": "Bearer"})
        await self.app(scope, receive, send)


class BodyLimit:
    """Reads the body first (declared or chunked) and refuses it past `max_bytes`; the paths in
    `streamed` only have their declared length checked against their own limit (their route
    reads and bounds the body as it arrives)."""

    def __init__(
        self, app: ASGIApp, max_bytes: int, streamed: Mapping[str, int] | None = None
    ) -> None:
        self.app, self.max_bytes = app, max_bytes
        self.streamed = dict(streamed or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = Headers(scope=scope).get("content-length", "")
        own = self.streamed.get(scope.get("path", ""))
        if own is not None:
            if declared.isdigit() and int(declared) > own:
                return await refuse(scope, send, _too_large(declared, own))
            return await self.app(scope, receive, send)
        if declared.isdigit() and int(declared) > self.max_bytes:
            return await refuse(scope, send, self._too_large(declared))
        chunks: list[bytes] = []
        size, more = 0, True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk: bytes = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                return await refuse(scope, send, self._too_large(f"over {self.max_bytes}"))
            chunks.append(chunk)
            more = bool(message.get("more_body", False))
        await self.app(scope, _replay(b"".join(chunks), receive), send)

    def _too_large(self, size: str) -> PayloadTooLarge:
        return _too_large(size, self.max_bytes)


def _too_large(size: str, limit: int) -> PayloadTooLarge:
    return PayloadTooLarge(f"Request body is {size} bytes; the limit is {limit}")


def _replay(body: bytes, receive: Receive) -> Receive:
    """The body read ahead, then whatever the connection says next (its disconnect)."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replay() -> Message:
        return pending.pop() if pending else await receive()

    return replay


class Deadline:
    """A request that has not started answering within `timeout_s` is cut short with 503
    (MCP tool calls keep their own deadline, see the MCP server; `exempt` paths stream for as
    long as their work takes)."""

    def __init__(self, app: ASGIApp, timeout_s: float, exempt: Collection[str] = ()) -> None:
        self.app, self.timeout_s = app, timeout_s
        self.exempt = frozenset(exempt)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or path.startswith(MCP_PATH) or path in self.exempt:
            return await self.app(scope, receive, send)
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            async with asyncio.timeout(self.timeout_s):
                await self.app(scope, receive, tracked)
        except TimeoutError:
            if started:
                raise
            await refuse(scope, send, RequestTimeout(self.timeout_s))
