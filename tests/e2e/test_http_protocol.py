"""A request the HTTP parser itself refuses is answered with the §2 envelope and a request id,
like every other refusal: a malformed request line, and a URL over the parser's 64 KiB (65,535
bytes pass)."""

from __future__ import annotations

import json
import re
import socket
from urllib.parse import urlsplit

import httpx
import pytest

EXPECTED = {
    "success": False,
    "error_type": "invalid_parameter",
    "message": "Invalid HTTP request: malformed, or a URL over 64 KiB",
    "error": "Invalid HTTP request: malformed, or a URL over 64 KiB",
}


def url_of(length: int) -> bytes:
    """A search URL of exactly `length` bytes (a query of 4-byte characters, padded)."""
    url = b"/v1/search?query=" + b"%F3%93%8A%84" * ((length - 17) // 12)
    return url + b"a" * (length - len(url))


def exchange(server_url: str, request_line: bytes) -> tuple[str, dict[str, str], bytes]:
    """Send one request with that request line; the status line, headers and body of the
    answer (read until the connection closes)."""
    parts = urlsplit(server_url)
    host = parts.netloc.encode()
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as conn:
        conn.sendall(request_line + b"\r\nHost: " + host + b"\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value for name, _, value in (h.partition(": ") for h in lines)}
    return status, headers, body


def refusals_counted(server_url: str) -> float:
    """mnemograph_errors_total for invalid_parameter answers over HTTP."""
    metrics = httpx.get(f"{server_url}/metrics").text
    line = re.search(
        r'^mnemograph_errors_total\{error_type="invalid_parameter",surface="http"\} (\S+)$',
        metrics,
        re.MULTILINE,
    )
    return float(line.group(1)) if line else 0.0


@pytest.mark.parametrize(
    "request_line",
    [b"GARBAGE", b"GET " + url_of(65_536) + b" HTTP/1.1"],
    ids=["malformed", "url-of-65536-bytes"],
)
def test_an_unparseable_request_gets_the_envelope_and_the_connection_closes(
    server_url: str, request_line: bytes
) -> None:
    counted = refusals_counted(server_url)
    status, headers, body = exchange(server_url, request_line)
    assert refusals_counted(server_url) == counted + 1
    assert status == "HTTP/1.1 400 Bad Request"
    assert (headers["content-type"], headers["connection"]) == ("application/json", "close")
    assert re.fullmatch("[0-9a-f]{12}", headers["x-request-id"])
    assert json.loads(body) == EXPECTED


def test_a_url_of_65535_bytes_is_served(server_url: str) -> None:
    status, _, body = exchange(server_url, b"GET " + url_of(65_535) + b" HTTP/1.1")
    assert status == "HTTP/1.1 200 OK"
    assert json.loads(body)["success"] is True
