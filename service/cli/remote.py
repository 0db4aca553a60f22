"""The HTTP client the CLI's memory commands use: the running service (found or started like
`mnemograph mcp` does, or `--url`), its §2 error envelopes as `ServiceError`, and the exit code
each error means."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import httpx

from service.config import Settings
from service.daemon.client import DaemonError, api_headers, ensure_server

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
TIMEOUT = httpx.Timeout(120.0, connect=5.0)


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
        self._client = httpx.Client(base_url=self.url, headers=dict(headers), timeout=TIMEOUT)

    @classmethod
    def connect(cls, settings: Settings, url: str | None, api_key: str | None) -> Remote:
        """The service at `url`, or the one that owns the data folder (started if needed)."""
        headers = {"authorization": f"Bearer {api_key}"} if api_key else api_headers(settings)
        try:
            return cls(url or ensure_server(settings), headers)
        except DaemonError as exc:
            raise ServiceError("unreachable", str(exc).removeprefix("mnemograph: ")) from exc

    def close(self) -> None:
        self._client.close()

    def call(
        self,
        method: str,
        path: str,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
    ) -> dict[str, Any]:
        """One JSON request; the decoded success payload, or `ServiceError`."""
        try:
            response = self._client.request(method, path, params=_query(params), json=body)
        except httpx.HTTPError as exc:
            raise ServiceError("unreachable", f"cannot reach {self.url}: {exc}") from exc
        return _payload(response)

    def upload(
        self, path: str, chunks: Iterator[bytes], params: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """A streamed request body (JSON Lines), answered with JSON."""
        headers = {"content-type": "application/x-ndjson"}
        try:
            response = self._client.post(
                path, params=_query(params), content=chunks, headers=headers, timeout=None
            )
        except httpx.HTTPError as exc:
            raise ServiceError("unreachable", f"cannot reach {self.url}: {exc}") from exc
        return _payload(response)

    def download(self, path: str, params: Mapping[str, Any] | None = None) -> Iterator[bytes]:
        """A streamed JSON Lines body, line by line (each with its newline). Lines end at "\n"
        only: a memory's text may hold U+2028 or U+0085, which other line readers split at."""
        try:
            with self._client.stream("GET", path, params=_query(params), timeout=None) as response:
                if response.status_code != 200:
                    response.read()
                    _payload(response)
                rest = b""
                for chunk in response.iter_bytes():
                    *complete, rest = (rest + chunk).split(b"\n")
                    yield from (line + b"\n" for line in complete)
                if rest:
                    yield rest + b"\n"
        except httpx.HTTPError as exc:
            raise ServiceError("unreachable", f"cannot reach {self.url}: {exc}") from exc


def _query(params: Mapping[str, Any] | None) -> dict[str, Any]:
    """Query parameters without the unset ones."""
    return {k: v for k, v in (params or {}).items() if v is not None}


def _payload(response: httpx.Response) -> dict[str, Any]:
    try:
        payload: Any = response.json()
    except ValueError:
        raise ServiceError(
            "internal", f"HTTP {response.status_code}: {response.text[:200]}"
        ) from None
    if not isinstance(payload, dict):
        raise ServiceError("internal", f"HTTP {response.status_code}: unexpected answer")
    body: dict[str, Any] = payload  # pyright: ignore[reportUnknownVariableType]
    if response.is_success and body.get("success", True):
        return body
    raise ServiceError(
        str(body.get("error_type", "internal")),
        str(body.get("message", f"HTTP {response.status_code}")),
    )
