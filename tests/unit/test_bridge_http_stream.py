"""The bridge's HTTP client against a loopback server that answers with given bytes: the request it
sends, the answers it reads (lengths, chunks, line ends), the connections it keeps, and how it
fails."""

from __future__ import annotations

import asyncio
import io
import json
import socket
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import pytest

from service.daemon.bridge import Bridge
from service.daemon.http_stream import ConnectFailed, ExchangeFailed, HttpStream

SSE_HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
)


def chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


def json_answer(body: bytes, *fields: bytes) -> bytes:
    head = [b"HTTP/1.1 200 OK", b"content-type: application/json", *fields]
    return b"\r\n".join([*head, b"content-length: %d" % len(body), b"", body])


@dataclass
class Loopback:
    """Answers the n-th request with `answers[n]`, then closes if `close_after` says so."""

    answers: list[bytes]
    close_after: bool = False
    requests: list[bytes] = field(default_factory=list[bytes])
    connections: int = 0

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        while not reader.at_eof():
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:
                break
            length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            self.requests.append(head + await reader.readexactly(length))
            writer.write(self.answers[len(self.requests) - 1])
            await writer.drain()
            if self.close_after:
                break
        writer.close()


@asynccontextmanager
async def serving(loopback: Loopback) -> AsyncGenerator[str]:
    server = await asyncio.start_server(loopback.serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        yield f"http://127.0.0.1:{port}"


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def post(client: HttpStream, url: str, body: bytes = b"{}") -> tuple[int, bytes]:
    async with client.post(f"{url}/mcp", body, {"mcp-method": "tools/list"}) as response:
        return response.status, await response.read()


async def test_the_request_carries_host_default_and_message_headers_length_and_body() -> None:
    loopback = Loopback([json_answer(b"{}")])
    async with serving(loopback) as url:
        await post(HttpStream({"authorization": "Bearer k"}), url, b'{"id": 1}')
    host = url.removeprefix("http://")
    assert loopback.requests == [
        b"POST /mcp HTTP/1.1\r\nhost: %s\r\nauthorization: Bearer k\r\nmcp-method: tools/list\r\n"
        b'content-length: 9\r\n\r\n{"id": 1}' % host.encode()
    ]


async def test_requests_one_after_another_share_one_connection() -> None:
    loopback = Loopback([json_answer(b'{"a": 1}'), json_answer(b'{"b": 2}')])
    async with serving(loopback) as url:
        client = HttpStream({})
        answers = [await post(client, url), await post(client, url)]
        client.close()
    assert answers == [(200, b'{"a": 1}'), (200, b'{"b": 2}')]
    assert loopback.connections == 1


async def test_a_connection_the_server_closes_is_not_used_again() -> None:
    closing = json_answer(b"{}", b"connection: close")
    loopback = Loopback([closing, json_answer(b"{}")], close_after=True)
    async with serving(loopback) as url:
        client = HttpStream({})
        await post(client, url)
        await asyncio.sleep(0.05)
        assert await post(client, url) == (200, b"{}")
    assert loopback.connections == 2


async def test_event_stream_lines_end_at_crlf_cr_or_lf_even_split_across_chunks() -> None:
    stream = SSE_HEAD + b"".join(
        chunk(part)
        for part in (b'data: {"a": "x\xe2\x80\xa8y"}\r', b"\n\r\ndata: 2\rdata: 3\n", b"\ndata: 4")
    )
    loopback = Loopback([stream + b"0\r\n\r\n"])
    async with serving(loopback) as url, HttpStream({}).post(f"{url}/mcp", b"{}", {}) as answer:
        lines = [line async for line in answer.lines()]
    assert lines == ['data: {"a": "x\u2028y"}', "", "data: 2", "data: 3", "", "data: 4"]


async def test_a_refused_connection_fails_before_anything_is_sent() -> None:
    with pytest.raises(ConnectFailed) as failed:
        await post(HttpStream({}), f"http://127.0.0.1:{closed_port()}")
    assert failed.value.reason == "ConnectionRefusedError"


async def test_an_answer_cut_off_mid_body_fails_the_exchange() -> None:
    cut = json_answer(b'{"long": "answer"}')[:-4]
    loopback = Loopback([cut], close_after=True)
    async with serving(loopback) as url:
        with pytest.raises(ExchangeFailed) as failed:
            await post(HttpStream({}), url)
    assert failed.value.reason == "IncompleteReadError"


async def test_a_header_value_that_would_split_the_request_is_refused_unsent() -> None:
    loopback = Loopback([])
    async with serving(loopback) as url:
        with pytest.raises(ExchangeFailed) as failed:
            async with HttpStream({}).post(f"{url}/mcp", b"{}", {"mcp-method": "a\r\nb: c"}):
                pass
    assert failed.value.reason == "ValueError"
    assert loopback.connections == 0


def relay(url: str, lines: list[bytes]) -> list[object]:
    """Run a bridge over these stdin lines (reconnecting to the same URL); what it wrote."""
    stdout = io.BytesIO()
    bridge = Bridge(url, {}, lambda: url, io.BytesIO(b"\n".join(lines) + b"\n"), stdout)
    asyncio.run(bridge.run())
    return [json.loads(line) for line in stdout.getvalue().splitlines()]


def test_a_request_no_server_answers_twice_gets_a_connection_closed_error() -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    assert relay(url, [b'{"jsonrpc": "2.0", "id": 7, "method": "tools/list"}']) == [
        {
            "jsonrpc": "2.0",
            "id": 7,
            "error": {"code": -32000, "message": f"mnemograph: no server answers at {url}"},
        }
    ]


def test_an_error_status_that_answers_nothing_becomes_a_connection_closed_error() -> None:
    denied = b'{"error_type": "unauthorized"}'
    loopback = Loopback([json_answer(denied).replace(b"200 OK", b"401 Unauthorized")])

    async def bridged() -> tuple[str, list[object]]:
        async with serving(loopback) as url:
            return url, await asyncio.to_thread(
                relay, url, [b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}']
            )

    url, written = asyncio.run(bridged())
    message = f"mnemograph: HTTP 401 from {url}/mcp {denied.decode()}"
    assert written == [{"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": message}}]
