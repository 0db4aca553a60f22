"""The guards in front of every route, in-process: keys on every `/v1` route and on `/mcp`,
Host/Origin checks, CORS off by default, body limit, rate limit, deadline, unknown routes."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from mcp import Client
from prometheus_client import REGISTRY

from service.api.mcp.server import build_mcp_server
from service.auth import Principal
from service.config import load_settings
from tests.adapters.conftest import MakeHttp, fake_runtime, runtime_ref

KEYS = "r-key:team:reader,w-key:team:writer"
PROBES = ("/healthz", "/metrics")


def sample(name: str, **labels: str) -> float:
    """A Prometheus sample's current value (0 before it is first counted)."""
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def test_every_v1_route_needs_a_key_and_only_the_probes_answer_without(
    make_http: MakeHttp,
) -> None:
    async with make_http(auth={"api_keys": KEYS}) as client:
        spec = (await client.get("/openapi.json")).json()
        refused: list[str] = []
        for path, operations in spec["paths"].items():
            if not path.startswith("/v1/"):
                continue
            concrete = path.replace("{ref}", "k").replace("{target}", "t")
            for method in operations:
                response = await client.request(method.upper(), concrete)
                if response.status_code == 401:
                    assert response.json()["error_type"] == "unauthorized", (method, path)
                    refused.append(f"{method.upper()} {path}")
        probes = [(await client.get(path)).status_code for path in PROBES]
        mcp = await client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    v1 = [f"{m.upper()} {p}" for p, ops in spec["paths"].items() for m in ops if "/v1/" in p]
    assert sorted(refused) == sorted(v1)
    assert len(v1) >= 14  # every tool twin and the HTTP-only routes
    assert probes == [200, 200]
    assert (mcp.status_code, mcp.json()["error_type"]) == (401, "unauthorized")
    assert mcp.headers["www-authenticate"] == "Bearer"


async def test_an_unknown_key_is_refused_on_mcp_as_on_v1(make_http: MakeHttp) -> None:
    async with make_http(auth={"api_keys": KEYS}) as client:
        mcp = await client.post("/mcp", json={}, headers={"Authorization": "Bearer nope"})
        v1 = await client.get("/v1/stats", headers={"X-API-Key": "nope"})
    assert mcp.json()["message"] == v1.json()["message"] == "Invalid API key"


async def test_a_foreign_host_or_origin_is_refused_but_probes_answer_any_host(
    make_http: MakeHttp,
) -> None:
    async with make_http() as client:
        host = await client.get("/v1/search", headers={"Host": "evil.example:8080"})
        origin = await client.get("/v1/search", headers={"Origin": "http://evil.example"})
        mcp = await client.post("/mcp", json={}, headers={"Host": "evil.example"})
        probe = await client.get("/healthz", headers={"Host": "10.1.2.3:8080"})
        local = await client.get(
            "/v1/search", params={"query": "q"}, headers={"Origin": "http://localhost:5173"}
        )
    assert (host.status_code, host.json()["message"]) == (
        403,
        "Host 'evil.example:8080' is not allowed: add it to MNEMO_HTTP__ALLOWED_HOSTS",
    )
    assert (origin.status_code, origin.json()["message"]) == (
        403,
        "Origin 'http://evil.example' is not allowed: add it to MNEMO_HTTP__ALLOWED_ORIGINS",
    )
    assert (mcp.status_code, mcp.json()["error_type"]) == (403, "forbidden")
    assert (probe.status_code, local.status_code) == (200, 200)


async def test_configured_hosts_and_origins_are_accepted(make_http: MakeHttp) -> None:
    http = {"allowed_hosts": ["mnemo.example:*"], "allowed_origins": ["https://app.example"]}
    async with make_http(http=http) as client:
        host = await client.get("/healthz", headers={"Host": "mnemo.example:443"})
        search = await client.get(
            "/v1/search",
            params={"query": "q"},
            headers={"Host": "mnemo.example:8443", "Origin": "https://app.example"},
        )
        other_port = await client.get("/v1/search", headers={"Host": "mnemo.example:x"})
    assert (host.status_code, search.status_code, other_port.status_code) == (200, 200, 403)


async def test_cors_is_off_by_default_and_on_for_configured_origins(make_http: MakeHttp) -> None:
    preflight = {
        "Origin": "http://127.0.0.1:3000",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization",
    }
    async with make_http() as client:
        off = await client.options("/v1/retrieve", headers=preflight)
    async with make_http(http={"cors_origins": ["http://127.0.0.1:3000"]}) as client:
        on = await client.options("/v1/retrieve", headers=preflight)
    assert "access-control-allow-origin" not in off.headers
    assert off.status_code == 405
    assert on.headers["access-control-allow-origin"] == "http://127.0.0.1:3000"


async def test_bodies_over_the_limit_are_413_whether_declared_or_chunked(
    make_http: MakeHttp,
) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(5):
            yield b"x" * 1000

    async with make_http(limits={"max_request_bytes": 4096}) as client:
        declared = await client.post("/v1/retrieve", content=b"x" * 4097)
        chunked = await client.post("/v1/retrieve", content=chunks())
        fits = await client.post("/v1/retrieve", json={"query": "q" * 4000})
    assert declared.json() == {
        "success": False,
        "error_type": "payload_too_large",
        "message": "Request body is 4097 bytes; the limit is 4096",
        "error": "Request body is 4097 bytes; the limit is 4096",
        "results": [],
    }
    assert (chunked.status_code, chunked.json()["message"]) == (
        413,
        "Request body is over 4096 bytes; the limit is 4096",
    )
    assert fits.status_code == 200


async def test_a_key_over_its_rate_gets_429_with_retry_after_and_others_go_on(
    make_http: MakeHttp,
) -> None:
    limits = {"rate_per_s": 0.5, "rate_burst": 2}
    async with make_http(auth={"api_keys": KEYS}, limits=limits) as client:
        reader = {"X-API-Key": "r-key"}
        statuses = [
            (await client.post("/v1/retrieve", json={"query": "q"}, headers=reader)).status_code
            for _ in range(2)
        ]
        limited = await client.post("/v1/retrieve", json={"query": "q"}, headers=reader)
        writer = await client.post(
            "/v1/retrieve", json={"query": "q"}, headers={"Authorization": "Bearer w-key"}
        )
        probe = await client.get("/healthz")
    assert statuses == [200, 200]
    assert limited.status_code == 429
    assert limited.headers["retry-after"] == "2"
    assert limited.json()["error_type"] == "rate_limited"
    assert limited.json()["results"] == []
    assert limited.json()["message"] == "Too many requests for this key; retry after 2 s"
    assert (writer.status_code, probe.status_code) == (200, 200)


async def test_a_request_past_its_deadline_is_503_backend_unavailable(
    make_http: MakeHttp,
) -> None:
    context = make_http(limits={"request_timeout_s": 0.05})

    async def stuck(namespace: str, params: Any) -> dict[str, Any]:
        await asyncio.sleep(5)
        return {}

    context.runtime.retrieval.retrieve = stuck  # type: ignore[method-assign]
    async with context as client:
        response = await client.post("/v1/retrieve", json={"query": "q"})
    assert response.status_code == 503
    assert response.json() == {
        "success": False,
        "error_type": "backend_unavailable",
        "message": "the service is unavailable: no answer within 0.05 s (limits.request_timeout_s)",
        "error": "the service is unavailable: no answer within 0.05 s (limits.request_timeout_s)",
        "results": [],
    }


async def test_an_mcp_tool_past_its_deadline_is_the_envelope() -> None:
    runtime = fake_runtime(load_settings(limits={"request_timeout_s": 0.05}))

    async def stuck(namespace: str, params: Any) -> dict[str, Any]:
        await asyncio.sleep(5)
        return {}

    runtime.retrieval.retrieve = stuck  # type: ignore[method-assign]
    async with Client(build_mcp_server(runtime_ref(runtime))) as client:
        result = await client.call_tool("retrieve_context", {"query": "q"})
    assert result.is_error
    assert result.structured_content is not None
    assert result.structured_content["error_type"] == "backend_unavailable"
    assert result.structured_content["results"] == []


async def test_unknown_routes_and_methods_answer_the_envelope(make_http: MakeHttp) -> None:
    async with make_http() as client:
        missing = await client.get("/v2/anything")
        method = await client.get("/v1/retrieve")
    assert (missing.status_code, missing.json()["message"]) == (404, "No route GET /v2/anything")
    assert (method.status_code, method.json()) == (
        405,
        {
            "success": False,
            "error_type": "invalid_parameter",
            "message": "Method GET is not allowed on /v1/retrieve",
            "error": "Method GET is not allowed on /v1/retrieve",
            "results": [],
        },
    )


def test_the_stdio_transport_acts_as_the_mcp_key_or_the_first_key() -> None:
    keyed = load_settings(auth={"api_keys": KEYS})
    chosen = load_settings(auth={"api_keys": KEYS}, mcp={"api_key": "w-key"})
    assert fake_runtime(keyed).authenticator.stdio_principal() == Principal("team", "reader")
    assert fake_runtime(chosen).authenticator.stdio_principal() == Principal("team", "writer")
    assert fake_runtime(load_settings()).authenticator.stdio_principal() == Principal(
        "default", "admin"
    )


async def test_get_and_delete_name_at_most_max_refs_ids_and_keys(make_http: MakeHttp) -> None:
    async with make_http(limits={"max_refs": 3}) as client:
        fits = await client.post("/v1/memories/get", json={"ids": ["a"], "keys": ["b", "c"]})
        over = await client.post("/v1/memories/get", json={"keys": ["a", "b"], "ids": ["c", "d"]})
    runtime = fake_runtime(load_settings(limits={"max_refs": 3}))
    async with Client(build_mcp_server(runtime_ref(runtime))) as mcp:
        deleted = await mcp.call_tool("memory_delete", {"keys": ["a", "b", "c", "d"]})
    message = "Invalid ids/keys value: 4 given; at most 3 (limits.max_refs) per call"
    assert fits.json()["missing"] == ["a", "b", "c"]
    assert (over.status_code, over.json()["message"], over.json()["memories"]) == (
        400,
        message,
        [],
    )
    assert deleted.structured_content is not None
    assert deleted.structured_content["message"] == message


async def test_a_body_that_is_not_json_is_400_invalid_parameter(make_http: MakeHttp) -> None:
    async with make_http() as client:
        response = await client.post(
            "/v1/memories", content=b"\xff\xfe\x00", headers={"Content-Type": "application/json"}
        )
    assert response.status_code == 400
    assert response.json()["error_type"] == "invalid_parameter"
    assert response.json()["message"].startswith("Invalid ")


async def test_each_answer_carries_a_request_id_that_an_internal_error_names(
    make_http: MakeHttp, caplog: pytest.LogCaptureFixture
) -> None:
    context = make_http()

    async def broken(namespace: str, params: Any) -> dict[str, Any]:
        raise RuntimeError("a bug")

    context.runtime.retrieval.retrieve = broken  # type: ignore[method-assign]
    async with context as client:
        first = await client.get("/healthz")
        second = await client.get("/healthz")
        failed = await client.post("/v1/retrieve", json={"query": "q"})
    ids = [r.headers["x-request-id"] for r in (first, second, failed)]
    assert all(re.fullmatch(r"[0-9a-f]{12}", value) for value in ids)
    assert len(set(ids)) == 3
    assert failed.json()["message"] == f"Internal error (request id {ids[2]})"
    assert "a bug" not in failed.text
    (record,) = [r for r in caplog.records if r.name == "service.api.http.guards"]
    assert record.getMessage() == f"request /v1/retrieve failed (request id {ids[2]})"


async def test_tool_latency_and_failures_by_error_type_are_metrics(make_http: MakeHttp) -> None:
    before = (
        sample("mnemograph_tool_seconds_count", tool="retrieve_context"),
        sample("mnemograph_errors_total", surface="mcp", error_type="invalid_parameter"),
        sample("mnemograph_errors_total", surface="http", error_type="unauthorized"),
    )
    runtime = fake_runtime(load_settings())
    async with Client(build_mcp_server(runtime_ref(runtime))) as mcp:
        await mcp.call_tool("retrieve_context", {"query": "q"})
        await mcp.call_tool("retrieve_context", {"query": "q", "limit": 0})
    async with make_http(auth={"api_keys": KEYS}) as client:
        await client.get("/v1/stats")
    after = (
        sample("mnemograph_tool_seconds_count", tool="retrieve_context"),
        sample("mnemograph_errors_total", surface="mcp", error_type="invalid_parameter"),
        sample("mnemograph_errors_total", surface="http", error_type="unauthorized"),
    )
    assert [b - a for a, b in zip(before, after, strict=True)] == [2.0, 1.0, 1.0]


async def test_http_requests_are_counted_and_timed_by_route_template_and_status(
    make_http: MakeHttp, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(*_: object) -> None:
        raise RuntimeError("a bug")

    counted = [
        ("/v1/memories/{ref}", "404"),
        ("/v1/search", "200"),
        ("/v1/search", "500"),
        ("other", "404"),
    ]
    before = [
        *(
            sample("mnemograph_http_requests_total", method="GET", route=r, status=s)
            for r, s in counted
        ),
        sample("mnemograph_http_request_seconds_count", method="GET", route="/v1/search"),
    ]
    context = make_http()
    async with context as client:
        statuses = [
            (await client.get("/v1/memories/missing")).status_code,
            (await client.get("/v1/search", params={"query": "q"})).status_code,
        ]
        monkeypatch.setattr(context.runtime.retrieval, "search", broken)
        statuses.append((await client.get("/v1/search", params={"query": "q"})).status_code)
        statuses.append((await client.get("/v1/nowhere")).status_code)
    after = [
        *(
            sample("mnemograph_http_requests_total", method="GET", route=r, status=s)
            for r, s in counted
        ),
        sample("mnemograph_http_request_seconds_count", method="GET", route="/v1/search"),
    ]
    assert statuses == [404, 200, 500, 404]
    assert [b - a for a, b in zip(before, after, strict=True)] == [1.0, 1.0, 1.0, 1.0, 2.0]
