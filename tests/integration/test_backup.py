"""Export and import against the real Neo4j, Qdrant Edge and embedding model: export → wipe →
import gives back identical memories, links, timestamps, searches and stats; imports are
idempotent, refuse bad lines one by one, and never reach into another namespace."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import pytest

from service.core.jsonl import numbered_lines
from service.core.memories import MemoryService
from service.core.models import SaveInput
from service.core.read.retrieval import Retrieval
from service.core.results import ImportResult
from service.core.search_inputs import RetrieveInput, SearchInput
from service.core.upkeep import backup
from service.core.upkeep.backup import export_lines
from service.core.upkeep.backup import restore as restore_lines
from service.core.write.batch import BatchSaver
from service.errors import Conflict
from service.stores.graph_store import GraphStore

MEMORIES: list[dict[str, Any]] = [
    {
        "key": "db",
        "type": "decision",
        "title": "Database",
        "content": "We store memories in Neo4j and vectors in Qdrant",
        "tags": ["arch", "storage"],
        "score": 90,
        "metadata": {"source": "adr-7", "nested": {"n": [1, 2]}},
        "session_id": "s1",
    },
    {"key": "edge", "content": "Qdrant Edge runs embedded for laptops", "score": 40},
    {"key": "cluster", "content": "Neo4j cluster and distributed Qdrant for teams"},
    {"key": "old-port", "content": "The HTTP API listens on port 9000"},
    {
        "key": "new-port",
        "content": "The HTTP API listens on port 8080",
        "supersedes": ["old-port"],
        "links": [
            {"key": "edge", "weight": 0.2, "type": "see_also"},
            {"key": "db", "weight": 0.9, "term": "stack"},
            {"key": "cluster", "weight": 0.9},
        ],
    },
]


async def populate(memories: MemoryService, namespace: str) -> None:
    for body in MEMORIES:
        await memories.save(namespace, SaveInput.model_validate(body))
    await memories.link(namespace, "db", "edge", weight=0.7, term="embedded")
    await memories.get(namespace, keys=["db", "db", "edge"])  # access counts and times move


STAMP = "2026-01-10T12:00:00.000Z"


def memory_line(memory_id: str, key: str, content: str, **fields: Any) -> dict[str, Any]:
    """An export's memory line, stamped 2026-01-10 noon and never read, with `fields` on top."""
    return {
        "kind": "memory",
        "id": memory_id,
        "key": key,
        "content": content,
        "created_at": STAMP,
        "updated_at": STAMP,
        "accessed_at": STAMP,
        "access_count": 0,
        **fields,
    }


async def export_bytes(graph: GraphStore, namespace: str) -> list[bytes]:
    return [json.dumps(line).encode() async for line in export_lines(graph, namespace)]


async def as_stream(lines: Sequence[bytes]) -> AsyncIterator[bytes]:
    yield b"\n".join(lines) + b"\n"


async def restore(batches: BatchSaver, namespace: str, lines: Sequence[bytes]) -> ImportResult:
    stream = numbered_lines(as_stream(lines), 1024**2)
    report = await restore_lines(batches, namespace, stream)
    return report.as_dict()


def rounded(value: Any) -> Any:
    """Scores to 4 decimals: vectors are embedded again on import, in batches, and a batch
    embeds a text a few units in the 7th decimal apart from a single embedding."""
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, dict):
        items: dict[str, Any] = value  # pyright: ignore[reportUnknownVariableType]
        return {k: rounded(v) for k, v in items.items()}
    if isinstance(value, list):
        values: list[Any] = value  # pyright: ignore[reportUnknownVariableType]
        return [rounded(v) for v in values]
    return value


def without_scores(results: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k not in ("score", "scores")} for r in results]


async def snapshot(memories: MemoryService, retrieval: Retrieval, namespace: str) -> dict[str, Any]:
    """Everything the round trip must keep: full memories (no access tracking), searches,
    retrievals and the stats."""
    ids = sorted(
        (await memories.reader.resolve(namespace, keys=[m["key"] for m in MEMORIES])).values()
    )
    views = await memories.reader.hydrate(namespace, ids, sort=False)
    search = await retrieval.search(namespace, SearchInput(query="Neo4j Qdrant", mode="hybrid"))
    retrieved: dict[str, list[Any]] = {
        mode: (
            await retrieval.retrieve(
                namespace, RetrieveInput(query="where are vectors stored", search_mode=mode)
            )
        )["results"]
        for mode in ("vector", "keyword", "kv")
    }
    # BM25 scores follow the statistics of the whole fulltext index (every namespace, and
    # deleted entries until Lucene merges them), which a wipe and re-import change: the keyword
    # channel is compared by what it returns and in which order.
    retrieved["keyword"] = without_scores(retrieved["keyword"])
    stats = await memories.lifecycle.stats(namespace)
    return rounded(
        {
            "memories": [views[i] for i in ids],
            "search": search["results"],
            "retrieve": retrieved,
            "stats": {
                k: stats[k]
                for k in (
                    "memoryCount",
                    "linkCount",
                    "dbSizeBytes",
                    "sessionCount",
                    "oldestMemory",
                    "newestMemory",
                )
            },
        }
    )


async def wipe(memories: MemoryService, namespace: str) -> None:
    await memories.delete(namespace, keys=[m["key"] for m in MEMORIES])
    assert (await memories.lifecycle.stats(namespace))["memoryCount"] == 0


async def test_export_wipe_import_gives_back_the_same_namespace(
    memories: MemoryService,
    retrieval: Retrieval,
    batches: BatchSaver,
    graph: GraphStore,
    namespace: str,
) -> None:
    await populate(memories, namespace)
    before = await snapshot(memories, retrieval, namespace)
    lines = await export_bytes(graph, namespace)
    assert [json.loads(line)["kind"] for line in lines] == [
        "header",
        *["memory"] * 5,
        *["link"] * 4,
        "end",
    ]
    assert json.loads(lines[-1]) == {"kind": "end", "memories": 5, "links": 4}
    await wipe(memories, namespace)
    report = await restore(batches, namespace, lines)
    assert report == {
        "success": True,
        "memories": {"created": 5, "updated": 0, "remapped": 0},
        "links": 4,
        "superseded": 1,
        "failed": 0,
        "complete": True,
        "errors": [],
        "errors_listed": 0,
    }
    after = await snapshot(memories, retrieval, namespace)
    for part in ("memories", "search", "stats"):
        assert after[part] == before[part], part
    for mode in ("vector", "keyword", "kv"):
        assert after["retrieve"][mode] == before["retrieve"][mode], mode
    counts = {m["key"]: m["access_count"] for m in after["memories"]}
    assert counts == {"db": 1, "edge": 1, "cluster": 0, "old-port": 0, "new-port": 0}
    assert (await export_bytes(graph, namespace))[1:] == lines[1:]


async def test_importing_twice_changes_nothing_the_second_time(
    memories: MemoryService,
    retrieval: Retrieval,
    batches: BatchSaver,
    graph: GraphStore,
    namespace: str,
) -> None:
    await populate(memories, namespace)
    lines = await export_bytes(graph, namespace)
    before = await snapshot(memories, retrieval, namespace)
    report = await restore(batches, namespace, lines)
    assert (report["memories"], report["links"], report["superseded"], report["failed"]) == (
        {"created": 0, "updated": 5, "remapped": 0},
        4,
        0,  # the supersession was already recorded
        0,
    )
    assert await snapshot(memories, retrieval, namespace) == before
    assert (await export_bytes(graph, namespace))[1:] == lines[1:]


async def test_memories_created_in_the_same_millisecond_are_all_exported_across_pages(
    batches: BatchSaver, graph: GraphStore, namespace: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    moment = "2026-01-10T12:00:00.000Z"
    twins = [
        {
            "kind": "memory",
            "id": str(uuid.uuid4()),
            "key": f"twin-{i}",
            "content": f"twin note {i}",
            "created_at": moment,
            "updated_at": moment,
            "accessed_at": moment,
            "access_count": 0,
        }
        for i in range(5)
    ]
    report = await restore(batches, namespace, [json.dumps(twin).encode() for twin in twins])
    assert report["memories"] == {"created": 5, "updated": 0, "remapped": 0}
    monkeypatch.setattr(backup, "PAGE", 2)  # the page boundaries fall between the twins
    exported = [line async for line in export_lines(graph, namespace)]
    assert sorted(line["key"] for line in exported if line["kind"] == "memory") == [
        f"twin-{i}" for i in range(5)
    ]


async def test_bad_lines_fail_alone_with_their_line_numbers(
    batches: BatchSaver, memories: MemoryService, namespace: str
) -> None:
    kept_id = "0b7e5b52-1d3c-4c4e-9d7e-2f1d8b1c0a01"
    good = memory_line(
        kept_id,
        "kept",
        "this one is fine",
        accessed_at="2026-01-11T08:30:00.000Z",
        access_count=3,
    )
    lines = [
        b"{not json",
        json.dumps(
            {**good, "id": "0b7e5b52-1d3c-4c4e-9d7e-2f1d8b1c0a02", "type": "Bad Type", "key": "bad"}
        ).encode(),
        json.dumps(good).encode(),
        json.dumps({"kind": "snapshot"}).encode(),
        json.dumps(
            {
                "kind": "link",
                "from": good["id"],
                "to": "0b7e5b52-1d3c-4c4e-9d7e-2f1d8b1c0a09",
                "created_at": "2026-01-10T12:00:00.000Z",
                "seq": 1,
            }
        ).encode(),
    ]
    report = await restore(batches, namespace, lines)
    assert [(e["line"], e["error_type"]) for e in report["errors"]] == [
        (1, "invalid_parameter"),
        (4, "invalid_parameter"),
        (2, "invalid_parameter"),
        (5, "not_found"),
    ]
    assert report["errors"][1]["message"] == (
        "Invalid kind value: 'snapshot'. Must be 'header', 'memory', 'link' or 'end'"
    )
    assert report["errors"][2]["message"].startswith("Invalid type value: 'Bad Type'")
    assert (report["memories"], report["failed"], report["complete"]) == (
        {"created": 1, "updated": 0, "remapped": 0},
        4,
        False,
    )
    kept = (await memories.reader.hydrate(namespace, [kept_id], sort=True))[kept_id]
    assert (kept["created_at"], kept["accessed_at"], kept["access_count"]) == (
        "2026-01-10T12:00:00.000Z",
        "2026-01-11T08:30:00.000Z",
        3,
    )


async def test_lines_no_store_can_hold_fail_alone(
    batches: BatchSaver, memories: MemoryService, namespace: str
) -> None:
    def line(number: int, **fields: Any) -> bytes:
        memory_id = f"0b7e5b52-1d3c-4c4e-9d7e-2f1d8b1c0b{number:02d}"
        return json.dumps(memory_line(memory_id, f"m{number}", "text", **fields)).encode()

    deep = json.dumps(memory_line("0b7e5b52-1d3c-4c4e-9d7e-2f1d8b1c0b05", "m5", "text"))
    link = {"kind": "link", "from": "0b7e5b52-1d3c-4c4e-9d7e-2f1d8b1c0b07", "seq": 10**30}
    lines = [
        line(1, metadata={"k": "\ud800"}),
        line(2, metadata={"n": float("nan")}),
        line(3, access_count=2**63),
        line(4, created_at="9999-12-31T23:59:59.999-14:00"),
        deep.replace(
            '"content"', '"metadata": {"d": ' + "[" * 950 + "]" * 950 + '}, "content"'
        ).encode(),
        json.dumps({**link, "to": link["from"], "created_at": STAMP}).encode(),
        line(7),
    ]
    report = await restore(batches, namespace, lines)
    assert [(e["line"], e["message"]) for e in report["errors"]] == [
        (1, "Invalid line: not JSON (a string holds a lone UTF-16 surrogate)"),
        (2, "Invalid line: not JSON (NaN and Infinity are not JSON numbers)"),
        (
            3,
            "Invalid access_count value: 9223372036854775808. "
            "Input should be less than or equal to 9223372036854775807",
        ),
        (
            4,
            "Invalid created_at value: '9999-12-31T23:59:59.999-14:00'. "
            "Must be a moment between years 1 and 9999 in UTC",
        ),
        (5, "Invalid line: not JSON (nested deeper than 72 levels)"),
        (
            6,
            "Invalid seq value: 1000000000000000000000000000000. "
            "Input should be less than or equal to 9223372036854775807",
        ),
    ]
    assert (report["memories"], report["failed"]) == (
        {"created": 1, "updated": 0, "remapped": 0},
        6,
    )
    assert (await memories.get(namespace, keys=["m7"]))["missing"] == []


async def test_an_import_line_never_overwrites_another_memory_holding_its_key(
    batches: BatchSaver, memories: MemoryService, namespace: str
) -> None:
    held = await memories.save(namespace, SaveInput(key="shared", content="already here"))
    new_id = "0b7e5b52-1d3c-4c4e-9d7e-2f1d8b1c0a77"
    line = memory_line(new_id, "shared", "from the file")
    report = await restore(batches, namespace, [json.dumps(line).encode()])
    held_id = held["memory"]["id"]
    assert report["errors"] == [
        {
            "line": 1,
            "error_type": "conflict",
            "message": f"Key 'shared' is already used by memory {held_id}",
        }
    ]
    got = await memories.get(namespace, ids=[held_id, new_id])
    assert [m["content"] for m in got["memories"]] == ["already here"]
    assert got["missing"] == [new_id]
    with pytest.raises(Conflict, match=f"^Key 'shared' is already used by memory {held_id}$"):
        await memories.save(namespace, SaveInput(id=new_id, key="shared", content="x"))


async def test_a_memory_superseded_by_one_that_is_not_there_is_imported_current(
    batches: BatchSaver, memories: MemoryService, retrieval: Retrieval, namespace: str
) -> None:
    absent = "0b7e5b52-1d3c-4c4e-9d7e-2f1d8b1c0a99"
    line = memory_line(
        "0b7e5b52-1d3c-4c4e-9d7e-2f1d8b1c0a98",
        "orphan",
        "The orphaned wombat note",
        superseded_by=absent,
        superseded_at=STAMP,
    )
    header = {"kind": "header", "format": backup.FORMAT, "version": backup.VERSION}
    report = await restore(
        batches, namespace, [json.dumps(header).encode(), json.dumps(line).encode()]
    )
    assert (report["memories"], report["failed"]) == (
        {"created": 1, "updated": 0, "remapped": 0},
        1,
    )
    assert report["errors"] == [
        {
            "line": 2,
            "error_type": "not_found",
            "message": f"Superseding memory not found: {absent} (the memory is kept current)",
        }
    ]
    got = (await memories.get(namespace, keys=["orphan"]))["memories"][0]
    assert got["superseded_by"] is None
    for mode in ("bm25", "vector"):
        found = await retrieval.search(namespace, SearchInput(query="orphaned wombat", mode=mode))
        assert [r["key"] for r in found["results"]] == ["orphan"], mode


async def test_an_import_into_another_namespace_copies_it_under_new_ids_and_leaves_it_as_it_was(
    memories: MemoryService, batches: BatchSaver, graph: GraphStore, namespace: str
) -> None:
    await populate(memories, namespace)
    original = await export_bytes(graph, namespace)
    copy = f"{namespace}-copy"
    report = await restore(batches, copy, original)
    assert (report["memories"], report["links"], report["superseded"], report["failed"]) == (
        {"created": 5, "updated": 0, "remapped": 5},
        4,
        1,
        0,
    )
    exported_ids = [json.loads(line)["id"] for line in original[1:6]]
    copied = b"\n".join(original[1:])
    for exported in exported_ids:
        copied = copied.replace(exported.encode(), backup.copy_id(copy, exported).encode())
    assert b"\n".join((await export_bytes(graph, copy))[1:]) == copied
    assert (await export_bytes(graph, namespace))[1:] == original[1:]
    again = await restore(batches, copy, original)
    assert (again["memories"], again["links"], again["superseded"], again["failed"]) == (
        {"created": 0, "updated": 5, "remapped": 5},
        4,
        0,
        0,
    )
    assert b"\n".join((await export_bytes(graph, copy))[1:]) == copied
