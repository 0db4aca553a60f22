"""The HTTP client the CLI's memory commands use: the running service (found or started like
`mnemograph mcp` does, or `--url`), its §2 error envelopes as `ServiceError`, and the exit code
each error means. The standard library's HTTP client: one request per command does not pay for
loading a richer one."""

from __future__ import annotations

import http.client
import json
from collections.abc import Generator, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, cast
from urllib.parse import quote, urlencode, urlsplit

from service.daemon.client import DaemonError, api_headers, ensure_server
from service.paths import ClientConfig

# Exit codes of the memory commands (argparse itself exits 2 on bad usage).
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_UNREACHABLE = 4
EXIT_DENIED = 5
EXIT_OF_ERROR = {
    "usage": EXIT_USAGE,  # the command line itself, checked before the service is asked
    "not_found": EXIT_NOT_FOUND,
    "unreachable": EXIT_UNREACHABLE,
    "unauthorized": EXIT_DENIED,
    "forbidden": EXIT_DENIED,
    "backend_unavailable": EXIT_UNREACHABLE,
    "memory_disabled": EXIT_UNREACHABLE,
}
CONNECT_TIMEOUT_S = 5.0
READ_TIMEOUT_S = 120.0
CHUNK = 64 * 1024
# Characters a path keeps as they are (a key's own %-escapes included); others are escaped.
_PATH_SAFE = "/%:@!$&'()*+,;=~"


class ServiceError(Exception):
    """A failure the service answered (its envelope) or could not be reached for."""

    def __init__(self, error_type: str, message: str) -> None:
        super().__init__(message)
        self.error_type = error_type
        self.message = message

    @property
    def exit_code(self) -> int:
        return EXIT_OF_ERROR.get(self.error_type, EXIT_FAILED)


class Remote:
    """Calls to one running service with the configured API key."""

    def __init__(self, url: str, headers: Mapping[str, str]) -> None:
        self.url = url.rstrip("/")
        self._headers = dict(headers)
        parts = urlsplit(self.url)
        self._https = parts.scheme == "https"
        self._host = parts.hostname or ""
        self._port = parts.port
        self._base = parts.path

    @classmethod
    def connect(cls, client: ClientConfig, url: str | None, api_key: str | None) -> Remote:
        """The service at `url`, or the one that owns the data folder (started if needed)."""
        headers = {"authorization": f"Bearer {api_key}"} if api_key else api_headers(client)
        try:
            return cls(url or ensure_server(client), headers)
        except DaemonError as exc:
            raise ServiceError("unreachable", str(exc).removeprefix("mnemograph: ")) from exc

    def close(self) -> None:
        """Nothing stays open between requests (each command sends one or two)."""

    def call(
        self,
        method: str,
        path: str,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
    ) -> dict[str, Any]:
        """One JSON request; the decoded success payload, or `ServiceError`."""
        content = None if body is None else json.dumps(body).encode()
        headers = {} if content is None else {"content-type": "application/json"}
        with self._exchange(method, path, params, content, headers, READ_TIMEOUT_S) as response:
            return _payload(response.status, self._read(response, None))

    def upload(
        self, path: str, chunks: Iterator[bytes], params: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """A streamed request body (JSON Lines), answered with JSON."""
        headers = {"content-type": "application/x-ndjson", "transfer-encoding": "chunked"}
        with self._exchange("POST", path, params, chunks, headers, None) as response:
            return _payload(response.status, self._read(response, None))

    def download(self, path: str, params: Mapping[str, Any] | None = None) -> Iterator[bytes]:
        """A streamed JSON Lines body, line by line (each with its newline). Lines end at "\n"
        only: a memory's text may hold U+2028 or U+0085, which other line readers split at."""
        with self._exchange("GET", path, params, None, {}, None) as response:
            if response.status != 200:
                _payload(response.status, self._read(response, None))
            rest = b""
            while chunk := self._read(response, CHUNK):
                *complete, rest = (rest + chunk).split(b"\n")
                yield from (line + b"\n" for line in complete)
            if rest:
                yield rest + b"\n"

    @contextmanager
    def _exchange(
        self,
        method: str,
        path: str,
        params: Mapping[str, Any] | None,
        body: bytes | Iterator[bytes] | None,
        headers: Mapping[str, str],
        read_timeout_s: float | None,
    ) -> Generator[http.client.HTTPResponse]:
        """One request on a connection of its own, its response open while the block runs."""
        target = quote(self._base + path, safe=_PATH_SAFE)
        query = _query(params)
        kind = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
        connection = kind(self._host, self._port, timeout=CONNECT_TIMEOUT_S)
        try:
            try:
                connection.connect()
                if connection.sock is not None:
                    connection.sock.settimeout(read_timeout_s)
                connection.request(
                    method,
                    f"{target}?{query}" if query else target,
                    body,
                    {**self._headers, **headers},
                    encode_chunked=not isinstance(body, bytes | None),
                )
                response = connection.getresponse()
            except (OSError, http.client.HTTPException) as exc:
                raise self._unreachable(exc) from exc
            yield response
        finally:
            connection.close()

    def _read(self, response: http.client.HTTPResponse, size: int | None) -> bytes:
        """The whole body (`size` None) or its next chunk; a transport failure: unreachable."""
        try:
            return response.read() if size is None else response.read1(size)
        except (OSError, http.client.HTTPException) as exc:
            raise self._unreachable(exc) from exc

    def _unreachable(self, exc: BaseException) -> ServiceError:
        return ServiceError("unreachable", f"cannot reach {self.url}: {exc}")


def _query(params: Mapping[str, Any] | None) -> str:
    """Query parameters without the unset ones, a list as the parameter repeated, booleans as
    `true` and `false`."""
    pairs: list[tuple[str, str]] = []
    for name, value in (params or {}).items():
        values = cast(list[Any], value) if isinstance(value, list | tuple) else [value]
        pairs.extend((name, _text(item)) for item in values if value is not None)
    return urlencode(pairs)


def _text(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def _payload(status: int, raw: bytes) -> dict[str, Any]:
    try:
        payload: Any = json.loads(raw)
    except ValueError:
        text = raw.decode(errors="replace")
        raise ServiceError("internal", f"HTTP {status}: {text[:200]}") from None
    if not isinstance(payload, dict):
        raise ServiceError("internal", f"HTTP {status}: unexpected answer")
    body: dict[str, Any] = payload  # pyright: ignore[reportUnknownVariableType]
    if 200 <= status < 300 and body.get("success", True):
        return body
    raise ServiceError(
        str(body.get("error_type", "internal")),
        str(body.get("message", f"HTTP {status}")),
    )
