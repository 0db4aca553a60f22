"""RequestMetrics: which status a request is counted under, driven as plain ASGI."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from prometheus_client import REGISTRY
from starlette.types import Message, Receive, Scope, Send

from service.api.metrics import RequestMetrics

ROUTE = "/test/request-metrics"


def counted(status: str) -> float:
    value = REGISTRY.get_sample_value(
        "mnemograph_http_requests_total", {"method": "POST", "route": ROUTE, "status": status}
    )
    return value or 0.0


async def run(app_reply: str, messages: list[Message]) -> list[Message]:
    """One POST through RequestMetrics around an app that reads its body (until its end or the
    client's disconnect), then answers (`answer`), fails (`raise`) or returns without an answer
    (`leave`); returns what was sent."""
    sent: list[Message] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        more = True
        while more:
            message = await receive()
            more = message["type"] == "http.request" and message.get("more_body", False)
        if app_reply == "answer":
            await send({"type": "http.response.start", "status": 201, "headers": []})
            await send({"type": "http.response.body", "body": b"{}"})
        elif app_reply == "raise":
            raise RuntimeError("a bug")

    async def receive() -> Message:
        return messages.pop(0)

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "route": SimpleNamespace(path=ROUTE)}
    await RequestMetrics(app)(scope, receive, send)
    return sent


BODY: Message = {"type": "http.request", "body": b"{", "more_body": True}
GONE: Message = {"type": "http.disconnect"}


async def test_an_answered_request_counts_under_its_status() -> None:
    before = counted("201")
    sent = await run("answer", [BODY, GONE])
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    assert counted("201") - before == 1.0


async def test_a_client_gone_before_any_answer_counts_as_499() -> None:
    before = (counted("499"), counted("500"))
    assert await run("leave", [BODY, GONE]) == []
    assert (counted("499") - before[0], counted("500") - before[1]) == (1.0, 0.0)


async def test_a_request_that_fails_without_an_answer_counts_as_500() -> None:
    before = (counted("499"), counted("500"))
    with pytest.raises(RuntimeError, match="a bug"):
        await run("raise", [{"type": "http.request", "body": b"{}", "more_body": False}, GONE])
    assert (counted("499") - before[0], counted("500") - before[1]) == (0.0, 1.0)
