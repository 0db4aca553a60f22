"""A request the HTTP parser itself refuses is answered with the §2 envelope, like every other
refusal: a malformed request line, and a URL over the parser's 64 KiB."""

from __future__ import annotations

import json
import socket
from urllib.parse import urlsplit

import pytest

EXPECTED = {
    "success": False,
    "error_type": "invalid_parameter",
    "message": "Invalid HTTP request: malformed, or a URL over 64 KiB",
    "error": "Invalid HTTP request: malformed, or a URL over 64 KiB",
}


def exchange(url: str, request: bytes) -> tuple[str, dict[str, str], bytes]:
    """Send raw bytes; the status line, headers and body of the answer (read until close)."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as conn:
        conn.sendall(request)
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value for name, _, value in (h.partition(": ") for h in lines)}
    return status, headers, body


@pytest.mark.parametrize(
    "request_line",
    [b"GARBAGE", b"GET /v1/search?query=" + b"%F3%93%8A%84" * 17_000 + b" HTTP/1.1"],
    ids=["malformed", "url-over-64KiB"],
)
def test_an_unparseable_request_gets_the_envelope_and_the_connection_closes(
    server_url: str, request_line: bytes
) -> None:
    status, headers, body = exchange(server_url, request_line + b"\r\nHost: x\r\n\r\n")
    assert status == "HTTP/1.1 400 Bad Request"
    assert (headers["content-type"], headers["connection"]) == ("application/json", "close")
    assert json.loads(body) == EXPECTED


def test_a_url_just_under_the_limit_is_served(server_url: str) -> None:
    query = b"%F3%93%8A%84" * 5_000  # 60,000 bytes of URL
    host = urlsplit(server_url).netloc.encode()
    request = b"GET /v1/search?query=" + query + b" HTTP/1.1\r\nHost: " + host + b"\r\n"
    status, _, body = exchange(server_url, request + b"Connection: close\r\n\r\n")
    assert status == "HTTP/1.1 200 OK"
    assert json.loads(body)["success"] is True
