"""In-process adapter tests: the MCP server through the SDK's in-memory client and the HTTP app
through httpx's ASGI transport, against a fake runtime (no Neo4j, runs in seconds)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

import httpx
import pytest
import pytest_asyncio

from service.api.http.app import create_app
from service.app import Runtime, RuntimeRef
from service.auth import Authenticator
from service.config import Settings, load_settings
from service.core.models import SaveInput, memory_view, now_utc
from service.core.read.view_cache import ViewCache
from service.core.refs import asked_refs
from service.core.results import (
    BatchResult,
    ContextResult,
    GetOneResult,
    MemoryView,
    RecentMemory,
    SaveResult,
)
from service.core.search_inputs import FulltextInput, RetrieveInput, SearchInput
from service.core.upkeep.context_index import Backlog
from service.core.write.batch import batch_response, validate_items
from service.core.write.batch_plan import Planned
from service.core.write.save_plan import plan_memory
from service.errors import MemoryDisabled, NotFound


@dataclass
class FakeMemories:
    """Records what the adapters pass and answers like the memory service."""

    settings: Settings
    calls: list[tuple[str, str, Any]] = field(default_factory=list[tuple[str, str, Any]])
    saved: dict[str, MemoryView] = field(default_factory=dict[str, MemoryView])

    def require_enabled(self) -> None:
        if not self.settings.memory.enabled:
            raise MemoryDisabled(
                "Memory system is not enabled. Set memory.enabled=true in "
                f"{self.settings.config_file} or MNEMO_MEMORY__ENABLED=true"
            )

    async def save(self, namespace: str, data: SaveInput) -> SaveResult:
        self.require_enabled()
        self.calls.append(("save", namespace, data))
        memory_id = fake_id(len(self.saved))
        fields = data.model_dump(include={"type", "title", "summary", "content", "tags"})
        row = {"id": memory_id, "key": data.key or memory_id, "namespace": namespace, **fields}
        memory = memory_view(row, [])
        self.saved[memory["key"]] = memory
        return {"success": True, "memory": memory, "created": True, "similar": []}

    async def recent(self, namespace: str, limit: int) -> list[RecentMemory]:
        self.require_enabled()
        newest = list(reversed(self.saved.values()))[:limit]
        return [
            {"key": m["key"], "title": m["title"], "summary": m["summary"], "type": m["type"]}
            for m in newest
        ]

    async def get(
        self, namespace: str, ids: list[str], keys: list[str], sort: bool, key: str | None = None
    ) -> dict[str, Any]:
        self.require_enabled()
        ids, keys = asked_refs(self.settings.limits, "memory_get", ids, keys, key)
        self.calls.append(("get", namespace, (ids, keys, sort)))
        return {"success": True, "memories": [], "missing": [*ids, *keys]}

    async def delete(self, namespace: str, ids: list[str], keys: list[str]) -> dict[str, Any]:
        self.require_enabled()
        ids, keys = asked_refs(self.settings.limits, "memory_delete", ids, keys)
        self.calls.append(("delete", namespace, (ids, keys)))
        return {"success": True, "deleted": 0, "missing": [*ids, *keys]}

    async def get_one(self, namespace: str, ref: str, sort: bool = True) -> GetOneResult:
        self.require_enabled()
        if ref not in self.saved:
            raise NotFound(f"Memory not found: {ref}")
        memory = self.saved[ref]
        return {"success": True, "memory": memory, "memories": [memory], "missing": []}


def _empty_page(limit: int) -> dict[str, Any]:
    return {
        "success": True,
        "results": [],
        "total": 0,
        "total_capped": False,
        "limit": limit,
        "offset": 0,
    }


class FakeContextRetriever:
    """retrieve_context's side the metrics read: a view cache holding nothing."""

    views: ClassVar[ViewCache] = ViewCache(0)


@dataclass
class FakeRetrieval:
    memories: FakeMemories
    context: FakeContextRetriever = field(default_factory=FakeContextRetriever)

    async def search(self, namespace: str, params: SearchInput) -> dict[str, Any]:
        self.memories.require_enabled()
        self.memories.calls.append(("search", namespace, params))
        return _empty_page(params.limit)

    async def fulltext(self, namespace: str, params: FulltextInput) -> dict[str, Any]:
        self.memories.require_enabled()
        self.memories.calls.append(("fulltext", namespace, params))
        return _empty_page(params.limit)

    async def retrieve(self, namespace: str, params: RetrieveInput) -> ContextResult:
        self.memories.require_enabled()
        self.memories.calls.append(("retrieve", namespace, params))
        return {
            "success": True,
            "results": [],
            "total_count": 0,
            "search_mode_used": params.search_mode,
            "sort_by": params.sort_by,
            "message": "Found 0 contexts",
            "warnings": [],
        }


@dataclass
class FakeBatch:
    """Batch saves: the real per-item checks and response, every valid item "created" with the
    id `00000000-0000-4000-8000-<index>`."""

    memories: FakeMemories

    async def save(self, namespace: str, items: list[Any], cleanup: object = None) -> BatchResult:
        self.memories.calls.append(("save_batch", namespace, items))
        checked = validate_items(self.memories.settings.limits, items)
        now = now_utc()
        planned = [
            Planned(i, plan_memory(namespace, d, fake_id(i), d.key, now, "fake", 384), [])
            for i, d in enumerate(checked)
            if isinstance(d, SaveInput)
        ]
        return batch_response(items, checked, planned, {})


def fake_id(index: int) -> str:
    return f"00000000-0000-4000-8000-{index:012d}"


class FakeContext:
    """A context indexer with nothing waiting and nothing refreshed yet."""

    counts: ClassVar[dict[str, int]] = {"approximated": 0, "averaged": 0, "embedded": 0, "kept": 0}

    async def backlog_details(self, namespace: str | None = None) -> Backlog:
        return Backlog(0, 0, 0.0)


class FakeLinkGraphs:
    """The graph walk's snapshots: none held, none looked up yet."""

    counts: ClassVar[dict[str, int]] = {
        "current": 0, "stale": 0, "loaded": 0, "discarded": 0, "advanced": 0,
    }  # fmt: skip
    held = 0


@dataclass
class FakeGraph:
    link_graphs: FakeLinkGraphs = field(default_factory=FakeLinkGraphs)


@dataclass
class FakeRuntime:
    settings: Settings
    memories: FakeMemories
    retrieval: FakeRetrieval
    batch: FakeBatch
    authenticator: Authenticator
    context: FakeContext = field(default_factory=FakeContext)
    graph: FakeGraph = field(default_factory=FakeGraph)


def fake_runtime(settings: Settings) -> FakeRuntime:
    memories = FakeMemories(settings)
    return FakeRuntime(
        settings,
        memories,
        FakeRetrieval(memories),
        FakeBatch(memories),
        Authenticator(settings.auth, settings.mcp.api_key),
    )


def runtime_ref(runtime: FakeRuntime) -> RuntimeRef:
    ref = RuntimeRef()
    ref.set(cast(Runtime, runtime))
    return ref


MakeHttp = Callable[..., "HttpClientContext"]


class HttpClientContext:
    """An httpx client on the ASGI app with the fake runtime set (the lifespan is not run)."""

    def __init__(self, **overrides: Any) -> None:
        self.settings = load_settings(**overrides)
        self.runtime = fake_runtime(self.settings)
        self.app = create_app(self.settings)
        self.app.state.runtime_ref.set(cast(Runtime, self.runtime))

    async def __aenter__(self) -> httpx.AsyncClient:
        transport = httpx.ASGITransport(app=self.app)
        self.client = httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1")
        return self.client

    async def __aexit__(self, *_: object) -> None:
        await self.client.aclose()


@pytest.fixture
def make_http() -> MakeHttp:
    return HttpClientContext


@pytest_asyncio.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with HttpClientContext() as client:
        yield client
