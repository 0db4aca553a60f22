"""A bounded loopback load over the real server with keys: concurrent clients mixing saves,
links, gets, searches and retrievals for a fixed time get no error, and every acknowledged save
reads back afterwards. CI: 16 clients for 10 s; `make soak`: 32 clients for 60 s."""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.e2e.conftest import SOAK, Tenants

CLIENTS, SECONDS = (32, 60.0) if SOAK else (16, 10.0)


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list[float])
    failures: list[str] = field(default_factory=list[str])
    saved: list[str] = field(default_factory=list[str])


async def client_loop(
    client: httpx.AsyncClient, ns: str, worker: int, until: float, tally: Tally
) -> None:
    """Save, link to the previous save, get, search, retrieve: until the time is up."""
    step = 0
    while time.monotonic() < until:
        key = f"load-{worker}-{step}"
        calls: list[tuple[str, str, dict[str, Any]]] = [
            (
                "POST",
                "/v1/memories",
                {"json": {"key": key, "content": f"load note {worker} {step}"}},
            ),
            ("POST", "/v1/memories/get", {"json": {"keys": [key], "namespace": ns}}),
            ("GET", "/v1/search", {"params": {"query": f"note {worker}", "limit": 5}}),
            ("POST", "/v1/retrieve", {"json": {"query": f"load {step}", "namespace": ns}}),
        ]
        if step:
            target = f"load-{worker}-{step - 1}"
            calls.append(("PUT", f"/v1/memories/{key}/links/{target}", {"json": {"weight": 0.6}}))
        for method, path, kwargs in calls:
            started = time.monotonic()
            params = {**kwargs.pop("params", {})}
            if not path.endswith(("/get", "/retrieve")):
                params["namespace"] = ns
            response = await client.request(method, path, params=params, **kwargs)
            tally.latencies.append(time.monotonic() - started)
            if response.status_code not in (200, 201):
                tally.failures.append(
                    f"{method} {path} {response.status_code} {response.text[:200]}"
                )
            elif path == "/v1/memories":
                tally.saved.append(key)
        step += 1


async def test_concurrent_mixed_load_gets_no_error_and_loses_no_save(tenants: Tenants) -> None:
    ns = f"load-{uuid.uuid4().hex[:10]}"
    tally = Tally()
    limits = httpx.Limits(max_connections=CLIENTS)
    async with httpx.AsyncClient(
        base_url=tenants.url, headers=tenants.scratch_headers(), timeout=60, limits=limits
    ) as client:
        started = time.monotonic()
        until = started + SECONDS
        async with asyncio.TaskGroup() as tasks:
            for worker in range(CLIENTS):
                tasks.create_task(client_loop(client, ns, worker, until, tally))
        elapsed = time.monotonic() - started
        found: list[str] = []
        missing: list[str] = []
        for chunk in range(0, len(tally.saved), 1000):  # limits.max_refs per get
            body = {"keys": tally.saved[chunk : chunk + 1000], "namespace": ns}
            got = (await client.post("/v1/memories/get", json=body)).json()
            found += [m["key"] for m in got["memories"]]
            missing += got["missing"]
    ordered = sorted(tally.latencies)
    p99 = ordered[int(len(ordered) * 0.99) - 1]
    print(
        f"load: {CLIENTS} clients, {len(ordered)} requests in {elapsed:.1f} s "
        f"({len(ordered) / elapsed:.1f}/s), p99 {p99 * 1000:.0f} ms, {len(tally.saved)} saves"
    )
    assert tally.failures == []
    assert len(tally.saved) >= CLIENTS
    assert missing == []
    assert sorted(found) == sorted(tally.saved)
