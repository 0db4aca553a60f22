"""The bridge's HTTP/1.1 client on asyncio streams: keep-alive connections to the daemon, and each
answer read as it arrives (whole, or line by line), with nothing beyond the standard library."""

from __future__ import annotations

import asyncio
import http.client
import io
import re
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import NamedTuple
from urllib.parse import urlsplit

CONNECT_TIMEOUT_S = 30.0
WRITE_TIMEOUT_S = 30.0
MAX_IDLE = 20
CHUNK = 64 * 1024
# Line ends of a server-sent event stream; other line breaks (U+2028, U+0085) are data.
_EOL = re.compile(rb"\r\n|\r|\n")
_UNSAFE_VALUE = re.compile(r"[\r\n\x00]")
# What a broken exchange raises: the socket, a short or malformed answer, an oversized head.
_FAILURES = (OSError, EOFError, ValueError, asyncio.LimitOverrunError, http.client.HTTPException)

Stream = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class Origin(NamedTuple):
    https: bool
    host: str
    port: int


class WireError(Exception):
    """An exchange that failed; `reason` names the failure's type."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(f"{type(cause).__name__}: {cause}")
        self.reason = type(cause).__name__


class ConnectFailed(WireError):
    """No connection could be opened: nothing was sent."""


class ExchangeFailed(WireError):
    """The exchange broke after it began: the request may or may not have been applied."""


class Response:
    """An answer whose head has arrived; its body comes off the connection as it is read."""

    def __init__(
        self,
        status: int,
        headers: http.client.HTTPMessage,
        body: AsyncIterator[bytes],
        lasting: bool,
    ) -> None:
        self.status = status
        self.headers = headers
        self.lasting = lasting  # the connection can carry another request once the body is read
        self.complete = False
        self._body = body

    async def chunks(self) -> AsyncIterator[bytes]:
        """The body's pieces as they arrive."""
        try:
            async for piece in self._body:
                yield piece
        except _FAILURES as exc:
            raise ExchangeFailed(exc) from exc
        self.complete = True

    async def read(self) -> bytes:
        """The whole body."""
        return b"".join([piece async for piece in self.chunks()])

    async def lines(self) -> AsyncIterator[str]:
        """The body's lines, each as soon as its end arrives (ends: CRLF, CR or LF)."""
        pending = b""
        async for piece in self.chunks():
            buffer = pending + piece
            cut = len(buffer) - 1 if buffer.endswith(b"\r") else len(buffer)  # CR, maybe CRLF
            *complete, tail = _EOL.split(buffer[:cut])
            pending = tail + buffer[cut:]
            for line in complete:
                yield line.decode(errors="replace")
        if pending:
            yield pending.removesuffix(b"\r").decode(errors="replace")


class HttpStream:
    """POSTs with these headers; connections are kept open for the next request to the origin."""

    def __init__(self, headers: Mapping[str, str]) -> None:
        self._headers = dict(headers)
        self._idle: dict[Origin, list[Stream]] = {}

    @asynccontextmanager
    async def post(
        self, url: str, body: bytes, headers: Mapping[str, str]
    ) -> AsyncGenerator[Response]:
        """POST `body` to `url`; the answer is open while the block runs. Raises `ConnectFailed`
        or `ExchangeFailed`."""
        parts = urlsplit(url)
        https = parts.scheme == "https"
        origin = Origin(https, parts.hostname or "", parts.port or (443 if https else 80))
        try:
            head = _request_head(parts.netloc, parts.path or "/", {**self._headers, **headers})
        except ValueError as exc:
            raise ExchangeFailed(exc) from exc
        reader, writer = self._reuse(origin) or await _connect(origin)
        response: Response | None = None
        try:
            try:
                async with asyncio.timeout(WRITE_TIMEOUT_S):
                    writer.write(head + b"content-length: %d\r\n\r\n" % len(body) + body)
                    await writer.drain()
                response = await _response(reader)
            except _FAILURES as exc:
                raise ExchangeFailed(exc) from exc
            yield response
        finally:
            idle = self._idle.setdefault(origin, [])
            kept = response is not None and response.complete and response.lasting
            if kept and len(idle) < MAX_IDLE:
                idle.append((reader, writer))
            else:
                writer.close()

    def close(self) -> None:
        """Close the idle connections."""
        for idle in self._idle.values():
            for _, writer in idle:
                writer.close()
        self._idle.clear()

    def _reuse(self, origin: Origin) -> Stream | None:
        """An idle connection to `origin` that the server has not closed, or None."""
        idle = self._idle.get(origin, [])
        while idle:
            reader, writer = idle.pop()
            if not reader.at_eof() and not writer.is_closing():
                return reader, writer
            writer.close()
        return None


async def _connect(origin: Origin) -> Stream:
    try:
        async with asyncio.timeout(CONNECT_TIMEOUT_S):
            return await asyncio.open_connection(origin.host, origin.port, ssl=origin.https or None)
    except OSError as exc:
        raise ConnectFailed(exc) from exc


def _request_head(host: str, target: str, headers: Mapping[str, str]) -> bytes:
    """The request line and headers, less the length; a value that would split a line is refused."""
    fields = {"host": host, **headers}
    for value in fields.values():
        if _UNSAFE_VALUE.search(value):
            raise ValueError(f"header value {value!r} holds a line break or NUL")
    lines = [f"POST {target} HTTP/1.1", *(f"{name}: {value}" for name, value in fields.items())]
    return ("\r\n".join(lines) + "\r\n").encode("latin-1")


async def _response(reader: asyncio.StreamReader) -> Response:
    """Read the answer's head; its body is framed by chunks, a length, or the connection's end."""
    status_line, _, fields = (await reader.readuntil(b"\r\n\r\n")).partition(b"\r\n")
    version, status = status_line.split(None, 2)[:2]
    headers = http.client.parse_headers(io.BytesIO(fields))
    lasting = version == b"HTTP/1.1" and "close" not in headers.get("connection", "").lower()
    if int(status) in (204, 304):
        body = _sized(reader, 0)
    elif "chunked" in headers.get("transfer-encoding", "").lower():
        body = _chunked(reader)
    elif (length := headers.get("content-length")) is not None:
        body = _sized(reader, int(length))
    else:
        body, lasting = _until_closed(reader), False
    return Response(int(status), headers, body, lasting)


async def _sized(reader: asyncio.StreamReader, length: int) -> AsyncIterator[bytes]:
    left = length
    while left:
        piece = await reader.read(min(left, CHUNK))
        if not piece:
            raise asyncio.IncompleteReadError(b"", left)
        left -= len(piece)
        yield piece


async def _chunked(reader: asyncio.StreamReader) -> AsyncIterator[bytes]:
    while size := int((await reader.readuntil(b"\r\n")).partition(b";")[0], 16):
        yield await reader.readexactly(size)
        if await reader.readexactly(2) != b"\r\n":
            raise ValueError("a chunk does not end with CRLF")
    while await reader.readuntil(b"\r\n") != b"\r\n":  # trailer fields, unused
        pass


async def _until_closed(reader: asyncio.StreamReader) -> AsyncIterator[bytes]:
    while piece := await reader.read(CHUNK):
        yield piece
