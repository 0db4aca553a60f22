"""memory_timeline, memory_stats and memory_cleanup through both adapters in-process: names
with and without the prefix, argument checks, the memory switch and the §2 envelope."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mcp import Client

from service.api.mcp.server import build_mcp_server
from service.config import load_settings
from service.errors import NotFound
from tests.adapters.conftest import FakeRuntime, MakeHttp, fake_runtime, runtime_ref

DISABLED = (
    "Memory system is not enabled. Set memory.enabled=true in mnemograph.toml or "
    "MNEMO_MEMORY__ENABLED=true"
)


@dataclass
class FakeLifecycle:
    """Records the calls and answers like the lifecycle use cases."""

    calls: list[tuple[str, Any]] = field(default_factory=list[tuple[str, Any]])

    async def timeline(self, namespace: str, ref: str, window: int, sort: bool) -> Any:
        self.calls.append(("timeline", (namespace, ref, window, sort)))
        if ref == "nope":
            raise NotFound(f"Memory not found: {ref}")
        return {"success": True, "anchor": ref, "timeline": []}

    async def stats(self, namespace: str) -> Any:
        self.calls.append(("stats", namespace))
        return {"success": True, "memoryCount": 0}

    async def cleanup(self, namespace: str, force: bool, dry_run: bool) -> Any:
        self.calls.append(("cleanup", (namespace, force, dry_run)))
        return {"success": True, "evictedCount": 0, "freedBytes": 0, "evictedIds": []}


def with_lifecycle(runtime: FakeRuntime) -> FakeLifecycle:
    lifecycle = FakeLifecycle()
    setattr(runtime.memories, "lifecycle", lifecycle)  # noqa: B010 (the fake has no such field)
    return lifecycle


async def call(prefix: str, tool: str, arguments: dict[str, Any], **settings: Any) -> Any:
    runtime = fake_runtime(load_settings(**settings))
    lifecycle = with_lifecycle(runtime)
    async with Client(build_mcp_server(runtime_ref(runtime), prefix)) as client:
        result = await client.call_tool(f"{prefix}{tool}", arguments)
    payload = result.structured_content
    assert payload is not None
    assert json.loads(result.content[0].text) == payload  # type: ignore[union-attr]
    assert result.is_error == (not payload["success"])
    return payload, lifecycle.calls


async def test_the_rulebook_prefix_names_the_three_lifecycle_tools() -> None:
    runtime = fake_runtime(load_settings())
    async with Client(build_mcp_server(runtime_ref(runtime), "rulebook_")) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
    assert {"rulebook_memory_timeline", "rulebook_memory_stats", "rulebook_memory_cleanup"} <= (
        names
    )


async def test_timeline_passes_the_seed_003_arguments_with_defaults() -> None:
    payload, calls = await call("rulebook_", "memory_timeline", {"memoryId": "abc-123"})
    assert payload == {"success": True, "anchor": "abc-123", "timeline": []}
    assert calls == [("timeline", ("default", "abc-123", 5, True))]


async def test_a_window_out_of_range_is_invalid_parameter_with_an_empty_timeline() -> None:
    payload, calls = await call("", "memory_timeline", {"memoryId": "a", "window": 51})
    assert payload["error_type"] == "invalid_parameter"
    assert payload["message"].startswith("Invalid window value: 51.")
    assert payload["timeline"] == []
    assert calls == []


async def test_an_unknown_anchor_is_not_found_over_mcp() -> None:
    payload, _ = await call("", "memory_timeline", {"memoryId": "nope"})
    assert (payload["error_type"], payload["message"]) == ("not_found", "Memory not found: nope")


async def test_cleanup_and_stats_pass_their_flags() -> None:
    payload, calls = await call("", "memory_cleanup", {"force": True})
    assert payload["evictedIds"] == []
    assert calls == [("cleanup", ("default", True, False))]
    _, calls = await call("", "memory_stats", {})
    assert calls == [("stats", "default")]


async def test_disabled_memory_refuses_every_lifecycle_tool_under_the_prefix() -> None:
    cases: list[tuple[str, dict[str, Any], dict[str, list[str]]]] = [
        ("memory_timeline", {"memoryId": "a"}, {"timeline": []}),
        ("memory_stats", {}, {}),
        ("memory_cleanup", {"force": True}, {"evictedIds": []}),
    ]
    for tool, arguments, lists in cases:
        payload, calls = await call("rulebook_", tool, arguments, memory={"enabled": False})
        assert payload == {
            "success": False,
            "error_type": "memory_disabled",
            "message": DISABLED,
            "error": DISABLED,
            **lists,
        }
        assert calls == []


async def test_http_twins_answer_like_the_tools(make_http: MakeHttp) -> None:
    context = make_http()
    lifecycle = with_lifecycle(context.runtime)
    async with context as http:
        timeline = await http.get("/v1/memories/k1/timeline", params={"window": 3})
        missing = await http.get("/v1/memories/nope/timeline")
        wide = await http.get("/v1/memories/k1/timeline", params={"window": 0})
        stats = await http.get("/v1/stats")
        cleanup = await http.post("/v1/cleanup", json={"dry_run": True})
        bare = await http.post("/v1/cleanup")
    assert (timeline.status_code, timeline.json()["anchor"]) == (200, "k1")
    assert (missing.status_code, missing.json()["error_type"]) == (404, "not_found")
    assert (wide.status_code, wide.json()["error_type"]) == (400, "invalid_parameter")
    assert (stats.status_code, cleanup.status_code, bare.status_code) == (200, 200, 200)
    assert lifecycle.calls == [
        ("timeline", ("default", "k1", 3, True)),
        ("timeline", ("default", "nope", 5, True)),
        ("stats", "default"),
        ("cleanup", ("default", False, True)),
        ("cleanup", ("default", False, False)),
    ]


async def test_http_twins_are_refused_when_memory_is_disabled(make_http: MakeHttp) -> None:
    context = make_http(memory={"enabled": False})
    with_lifecycle(context.runtime)
    async with context as http:
        answers = [
            await http.get("/v1/memories/k1/timeline"),
            await http.get("/v1/stats"),
            await http.post("/v1/cleanup", json={"force": True}),
        ]
    assert [(a.status_code, a.json()["error_type"]) for a in answers] == [
        (503, "memory_disabled")
    ] * 3
