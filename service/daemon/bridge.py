"""`mnemograph mcp`: a thin bridge relaying MCP messages unchanged between stdio and the daemon's
streamable HTTP endpoint (one POST per message; JSON or SSE answers written back as lines)."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import re
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any, BinaryIO, cast

from service.daemon.http_stream import ConnectFailed, HttpStream, WireError

log = logging.getLogger(__name__)

# Routing headers of the streamable HTTP wire (MCP spec), as in `mcp.shared.inbound`, whose
# import would cost every bridge seconds at start-up; a unit test keeps them equal.
PROTOCOL_VERSION_HEADER = "mcp-protocol-version"
METHOD_HEADER = "mcp-method"
NAME_HEADER = "mcp-name"
PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion"
NAME_BEARING_METHODS = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
WIRE_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
CONNECTION_CLOSED = -32000
PARSE_ERROR = -32700
_HEADER_SAFE = re.compile(r"^[\x20-\x7E]*$")
_B64_SENTINEL = re.compile(r"^=\?base64\?(?P<payload>.*)\?=$")

Message = dict[str, Any]


def request_headers(message: Message, negotiated: str | None) -> dict[str, str]:
    """The headers a message needs: the 2026 wire mirrors version, method and name from the
    body; earlier versions carry the version negotiated by `initialize`."""
    method = message.get("method")
    params = _object(message.get("params"))
    version = _object(params.get("_meta")).get(PROTOCOL_VERSION_META_KEY)
    if isinstance(version, str) and isinstance(method, str):
        headers = {PROTOCOL_VERSION_HEADER: version, METHOD_HEADER: method}
        name = params.get(NAME_BEARING_METHODS.get(method, ""))
        if isinstance(name, str):
            headers[NAME_HEADER] = header_value(name)
        return headers
    if negotiated is not None and method != "initialize":
        return {PROTOCOL_VERSION_HEADER: negotiated}
    return {}


def header_value(value: str) -> str:
    """A value as an HTTP header carries it: printable ASCII as is, anything else base64-wrapped."""
    if _HEADER_SAFE.fullmatch(value) and value == value.strip() and not _B64_SENTINEL.match(value):
        return value
    return f"=?base64?{base64.b64encode(value.encode()).decode('ascii')}?="


async def sse_data(lines: AsyncIterator[str]) -> AsyncIterator[str]:
    """The data of each `message` event of a server-sent event stream."""
    data: list[str] = []
    event = "message"
    async for line in lines:
        if not line:
            if data and event == "message":
                yield "\n".join(data)
            data, event = [], "message"
            continue
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "data":
            data.append(value)
        elif field == "event":
            event = value
    if data and event == "message":
        yield "\n".join(data)


def _object(value: object) -> dict[str, Any]:
    return cast(dict[str, Any], value) if isinstance(value, dict) else {}


class Bridge:
    """Relays stdin's messages to `<url>/mcp` and the answers to stdout; when the server has gone
    away, `reconnect` finds or starts one (blocking) and the message is sent once more."""

    def __init__(
        self,
        url: str,
        headers: dict[str, str],
        reconnect: Callable[[], str],
        stdin: BinaryIO,
        stdout: BinaryIO,
    ) -> None:
        self._url = url
        self._headers = headers
        self._reconnect_blocking = reconnect
        self._stdin = stdin
        self._stdout = stdout
        self._version: str | None = None
        self._inflight: dict[str, asyncio.Task[None]] = {}
        self._reconnecting = asyncio.Lock()

    async def run(self) -> None:
        """Relay until stdin closes, then let the requests in flight finish."""
        lines: asyncio.Queue[bytes] = asyncio.Queue()
        loop = asyncio.get_running_loop()
        reader = threading.Thread(target=self._read, args=(loop, lines), daemon=True)
        reader.start()
        client = HttpStream({**WIRE_HEADERS, **self._headers})
        try:
            async with asyncio.TaskGroup() as tasks:
                while line := await lines.get():
                    self._dispatch(client, tasks, line)
        finally:
            client.close()

    def _read(self, loop: asyncio.AbstractEventLoop, lines: asyncio.Queue[bytes]) -> None:
        """stdin's lines, read in a daemon thread (a blocked read never holds up the exit)."""
        try:
            for line in self._stdin:
                if line.strip():
                    loop.call_soon_threadsafe(lines.put_nowait, line.strip())
            loop.call_soon_threadsafe(lines.put_nowait, b"")
        except RuntimeError:  # the loop has closed: the bridge is exiting
            return

    def _dispatch(self, client: HttpStream, tasks: asyncio.TaskGroup, line: bytes) -> None:
        try:
            parsed: object = json.loads(line)
        except ValueError:
            self._emit_error(None, PARSE_ERROR, "Parse error: the line is not JSON")
            return
        message = _object(parsed)
        method, request_id = message.get("method"), message.get("id")
        if method == "notifications/cancelled":
            # Closing the request's POST is the cancellation a stateless server understands.
            key = json.dumps(_object(message.get("params")).get("requestId"))
            if (task := self._inflight.get(key)) is not None:
                task.cancel()
            return
        headers = request_headers(message, self._version)
        if method is None or request_id is None:
            tasks.create_task(self._relay(client, line, headers, None, False))
            return
        key = json.dumps(request_id)
        task = tasks.create_task(
            self._relay(client, line, headers, request_id, method == "initialize")
        )
        self._inflight[key] = task
        task.add_done_callback(lambda done: self._forget(key, done))

    def _forget(self, key: str, task: asyncio.Task[None]) -> None:
        if self._inflight.get(key) is task:
            del self._inflight[key]

    async def _relay(
        self,
        client: HttpStream,
        body: bytes,
        headers: dict[str, str],
        request_id: object,
        initialize: bool,
    ) -> None:
        """POST one message; on a refused connection (nothing sent) reconnect and send it again."""
        for attempt in (1, 2):
            try:
                await self._post(client, body, headers, request_id, initialize)
                return
            except ConnectFailed:
                problem = await self._reconnect() if attempt == 1 else None
                if problem is not None or attempt == 2:
                    message = problem or f"mnemograph: no server answers at {self._url}"
                    self._emit_error(request_id, CONNECTION_CLOSED, message)
                    return
            except WireError as exc:
                self._emit_error(
                    request_id,
                    CONNECTION_CLOSED,
                    f"mnemograph: the server at {self._url} failed while answering "
                    f"({exc.reason}); the request may or may not have been applied",
                )
                return

    async def _post(
        self,
        client: HttpStream,
        body: bytes,
        headers: dict[str, str],
        request_id: object,
        initialize: bool,
    ) -> None:
        answered = False
        async with client.post(f"{self._url}/mcp", body, headers) as r:
            kind = r.headers.get("content-type", "").partition(";")[0].strip().lower()
            if kind == "text/event-stream":
                async for data in sse_data(r.lines()):
                    answered |= self._deliver(data.encode(), request_id, initialize)
                text = ""
            else:
                raw = (await r.read()).strip()
                answered = bool(raw) and self._deliver(raw, request_id, initialize)
                text = raw[:300].decode(errors="replace")
        if request_id is not None and not answered:
            problem = f"mnemograph: HTTP {r.status} from {self._url}/mcp {text}".strip()
            self._emit_error(request_id, CONNECTION_CLOSED, problem)

    def _deliver(self, raw: bytes, request_id: object, initialize: bool) -> bool:
        """Write a JSON-RPC message to stdout as it came; true if it answers `request_id`."""
        try:
            parsed: object = json.loads(raw)
        except ValueError:
            return False
        message = _object(parsed)
        if "jsonrpc" not in message and not isinstance(parsed, list):
            return False
        self._write(b" ".join(raw.splitlines()))
        answers = "method" not in message and message.get("id") == request_id
        result = _object(message.get("result"))
        if answers and initialize and isinstance(result.get("protocolVersion"), str):
            self._version = result["protocolVersion"]
        return answers

    async def _reconnect(self) -> str | None:
        """Find or start the server again (once for all waiting requests); a problem, or None."""
        async with self._reconnecting:
            try:
                self._url = await asyncio.to_thread(self._reconnect_blocking)
            except Exception as exc:
                return str(exc)
        return None

    def _emit_error(self, request_id: object, code: int, message: str) -> None:
        if request_id is None:
            log.warning("%s", message)
            return
        error = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
        self._write(json.dumps(error).encode())

    def _write(self, line: bytes) -> None:
        self._stdout.write(line + b"\n")
        self._stdout.flush()
