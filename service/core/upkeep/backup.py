"""Export and import of a namespace as JSON Lines (docs/contract.md §6, backup and restore).

An export is a header line, every memory in (created_at, id) order with all its fields and
timestamps, every LINK in each source's creation order, and an end line with the counts; no
vectors. Both directions stream page by page, so memory use does not grow with the namespace.
An import re-embeds through the batch path, restores timestamps, access counts, supersession
and link order exactly, is idempotent, and reports per-line errors without stopping. Importing
into another namespace copies: an id that belongs to another namespace gets a new id derived
from it and the target namespace (the same on every import), in links and supersessions too.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Annotated, Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from service.core.json_text import NotStorableJson, strict_loads
from service.core.models import (
    LinkTypeParam,
    MemoryId,
    TermParam,
    WeightParam,
    iso_ms,
    now_utc,
)
from service.core.results import ImportLineError, ImportResult
from service.core.scalars import Moment, NotAFlag
from service.core.write.batch import BatchSaver
from service.core.write.save_plan import Restored
from service.core.write.supersede import flag_vectors
from service.errors import (
    InvalidParameter,
    MnemographError,
    NotFound,
    invalid_from_validation,
)
from service.stores.graph_store import GraphStore

FORMAT = "mnemograph-export"
VERSION = 1
PAGE = 500
MEMORY_CHUNK = 256
LINK_CHUNK = 1000
MAX_LISTED_ERRORS = 1000
MAX_INT64 = 2**63 - 1  # Neo4j stores 64-bit integers
SAVED_FIELDS = ("id", "key", "type", "title", "summary", "content", "tags", "score")
COPIES = uuid.UUID("5d0c1a52-86d4-4c4b-9a43-4f3f2f0c7e21")  # names the ids of copied memories


class ExportedMemory(BaseModel):
    """A memory line: a memory_save body with its id and what an import restores."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["memory"]
    id: MemoryId
    created_at: Moment
    updated_at: Moment
    accessed_at: Moment
    access_count: Annotated[int, NotAFlag] = Field(ge=0, le=MAX_INT64)
    superseded_by: MemoryId | None = None
    superseded_at: Moment | None = None

    def restored(self) -> Restored:
        return Restored(
            created_at=self.created_at,
            updated_at=self.updated_at,
            accessed_at=self.accessed_at,
            access_count=self.access_count,
            superseded_by=self.superseded_by,
            superseded_at=self.superseded_at,
        )


class ExportedLink(BaseModel):
    """A link line: one LINK edge as it was."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    kind: Literal["link"]
    source: MemoryId = Field(alias="from")
    target: MemoryId = Field(alias="to")
    type: LinkTypeParam = "related"
    weight: WeightParam = 0.5
    term: TermParam = None
    created_at: Moment
    seq: Annotated[int, NotAFlag] = Field(ge=-MAX_INT64 - 1, le=MAX_INT64)


RESTORED_FIELDS = frozenset(ExportedMemory.model_fields) - {"id"}


async def export_lines(graph: GraphStore, namespace: str) -> AsyncIterator[dict[str, Any]]:
    """The export of a namespace, line by line (header, memories, links, end)."""
    yield {
        "kind": "header",
        "format": FORMAT,
        "version": VERSION,
        "namespace": namespace,
        "exported_at": iso_ms(now_utc()),
    }
    memories = links = 0
    async for page in _pages(graph, namespace):
        memories += len(page)
        for memory in page:
            yield memory_line(memory)
    async for page in _pages(graph, namespace):
        rows = await graph.read("export_links", ids=[m["id"] for m in page])
        for row in rows:
            for line in link_lines(row["source_id"], row["links"]):
                links += 1
                yield line
    yield {"kind": "end", "memories": memories, "links": links}


async def _pages(graph: GraphStore, namespace: str) -> AsyncIterator[list[dict[str, Any]]]:
    """The namespace's memories in pages, by seeking past the last one of the page before."""
    after: dict[str, Any] = {"after_created": None, "after_id": ""}
    while True:
        rows = await graph.read("export_memories", namespace=namespace, limit=PAGE, **after)
        if not rows:
            return
        page = [row["memory"] for row in rows]
        yield page
        after = {"after_created": page[-1]["created_at"], "after_id": page[-1]["id"]}


def memory_line(memory: dict[str, Any]) -> dict[str, Any]:
    """One stored memory as an export line."""
    metadata = memory.get("metadata_json")
    return {
        "kind": "memory",
        **{name: memory.get(name) for name in SAVED_FIELDS},
        "tags": list(memory.get("tags") or []),
        "metadata": json.loads(metadata) if metadata else {},
        "session_id": memory.get("session_id"),
        "created_at": iso_ms(memory.get("created_at")),
        "updated_at": iso_ms(memory.get("updated_at") or memory.get("created_at")),
        "accessed_at": iso_ms(memory.get("accessed_at") or memory.get("created_at")),
        "access_count": memory.get("access_count") or 0,
        "superseded_by": memory.get("superseded_by"),
        "superseded_at": iso_ms(memory.get("superseded_at")),
    }


def link_lines(source_id: str, links: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
    """A source's links (target id, type, weight, term, created_at, seq) as export lines."""
    return [
        {
            "kind": "link",
            "from": source_id,
            "to": target_id,
            "type": link_type,
            "weight": weight,
            "term": term,
            "created_at": iso_ms(created_at),
            "seq": seq,
        }
        for target_id, link_type, weight, term, created_at, seq in links
    ]


@dataclass
class RestoreReport:
    """What an import did: memories created and updated (`remapped`: of those, copies under a
    new id, their exported id belonging to another namespace), links written, supersessions
    recorded, and the lines refused (`{line, error_type, message}`, the first 1,000 listed)."""

    created: int = 0
    updated: int = 0
    remapped: int = 0
    links: int = 0
    superseded: int = 0
    failed: int = 0
    complete: bool = False
    errors: list[ImportLineError] = field(default_factory=list[ImportLineError])
    saved_lines: dict[str, int] = field(default_factory=dict[str, int])  # memory id -> line

    def refuse(self, line: int, error_type: str, message: str) -> None:
        self.failed += 1
        if len(self.errors) < MAX_LISTED_ERRORS:
            self.errors.append({"line": line, "error_type": error_type, "message": message})

    def as_dict(self) -> ImportResult:
        return {
            "success": True,
            "memories": {
                "created": self.created,
                "updated": self.updated,
                "remapped": self.remapped,
            },
            "links": self.links,
            "superseded": self.superseded,
            "failed": self.failed,
            "complete": self.complete,
            "errors": self.errors,
            "errors_listed": len(self.errors),
        }


async def restore(
    saver: BatchSaver,
    namespace: str,
    lines: AsyncIterator[tuple[int, bytes | MnemographError]],
) -> RestoreReport:
    """POST /v1/import: JSON Lines of an export into `namespace`, through the batch path."""
    return await Restorer(saver).run(namespace, lines)


class Restorer:
    """Imports JSON Lines into one namespace: memories in chunks through the batch path,
    links in chunks once their memories are written, supersessions at the end."""

    def __init__(self, saver: BatchSaver) -> None:
        self.graph = saver.stores.graph
        self.saver = saver
        self.ids: dict[str, str] = {}  # exported id -> id in the target namespace

    async def _map_ids(self, namespace: str, ids: Iterable[str | None]) -> None:
        """Learn the target id of each exported id not seen yet: its own, unless a memory of
        another namespace holds it."""
        new = list(dict.fromkeys(i for i in ids if i is not None and i not in self.ids))
        if not new:
            return
        rows = await self.graph.read("memory_ids_elsewhere", ids=new, namespace=namespace)
        elsewhere = {row["id"] for row in rows}
        for exported in new:
            self.ids[exported] = copy_id(namespace, exported) if exported in elsewhere else exported

    def _mapped(self, exported: str | None) -> str | None:
        return None if exported is None else self.ids.get(exported, exported)

    async def run(
        self, namespace: str, lines: AsyncIterator[tuple[int, bytes | MnemographError]]
    ) -> RestoreReport:
        """`lines` yields (line number, raw line or the error that line already has)."""
        report = RestoreReport()
        memories: list[tuple[int, dict[str, Any], Restored]] = []
        links: list[tuple[int, ExportedLink]] = []
        async for number, raw in lines:
            parsed = raw if isinstance(raw, MnemographError) else parse_line(raw)
            if isinstance(parsed, MnemographError):
                report.refuse(number, parsed.error_type, parsed.message)
            elif isinstance(parsed, ExportedLink):
                links.append((number, parsed))
            elif isinstance(parsed, tuple):
                memories.append((number, *parsed))
            else:
                report.complete = report.complete or parsed == "end"
            if len(memories) >= MEMORY_CHUNK:
                await self._memories(namespace, memories, report)
            if len(links) >= LINK_CHUNK:
                await self._memories(namespace, memories, report)
                await self._links(namespace, links, report)
        await self._memories(namespace, memories, report)
        await self._links(namespace, links, report)
        rows = await self.graph.write("import_supersessions", namespace=namespace)
        report.superseded = int(rows[0]["recorded"]) if rows else 0
        await self._dangling_supersessions(namespace, report)
        return report

    async def _dangling_supersessions(self, namespace: str, report: RestoreReport) -> None:
        """An imported memory superseded by a memory that is not there stays current (it would
        otherwise drop out of every search for good): its line is reported."""
        rows = await self.graph.write(
            "import_dangling_supersessions", namespace=namespace, ids=list(report.saved_lines)
        )
        stores = [self.saver.stores.vectors, self.saver.stores.context_vectors]
        await flag_vectors(self.graph, stores, rows, superseded=False)
        for row in rows:
            report.refuse(
                report.saved_lines[row["id"]],
                "not_found",
                f"Superseding memory not found: {row['named']} (the memory is kept current)",
            )

    async def _memories(
        self,
        namespace: str,
        chunk: list[tuple[int, dict[str, Any], Restored]],
        report: RestoreReport,
    ) -> None:
        if not chunk:
            return
        await self._map_ids(
            namespace, [exported_id(b) for _, b, _ in chunk] + [r.superseded_by for *_, r in chunk]
        )
        bodies = [{**body, "id": self._mapped(exported_id(body))} for _, body, _ in chunk]
        result = await self.saver.save(
            namespace,
            bodies,
            restored={
                index: replace(restored, superseded_by=self._mapped(restored.superseded_by))
                for index, (_, _, restored) in enumerate(chunk)
            },
        )
        for (number, body, _), item in zip(chunk, result["results"], strict=True):
            if item["success"] is False:
                report.refuse(number, item["error_type"], item["message"])
                continue
            report.saved_lines[item["id"]] = number
            report.remapped += item["id"] != exported_id(body)
            if item["created"]:
                report.created += 1
            else:
                report.updated += 1
        chunk.clear()

    async def _links(
        self, namespace: str, chunk: list[tuple[int, ExportedLink]], report: RestoreReport
    ) -> None:
        if not chunk:
            return
        await self._map_ids(
            namespace, [end for _, link in chunk for end in (link.source, link.target)]
        )
        rows = [
            {
                "line": number,
                "source_id": self._mapped(link.source),
                "target_id": self._mapped(link.target),
                "type": link.type,
                "weight": link.weight,
                "term": link.term,
                "created_at": link.created_at,
                "seq": link.seq,
            }
            for number, link in chunk
        ]
        written = await self.graph.write("link_import", namespace=namespace, links=rows)
        done = set(written[0]["lines"]) if written else set[int]()
        report.links += len(done)
        for number, link in chunk:
            if number not in done:
                report.refuse(
                    number,
                    NotFound.error_type,
                    f"Link endpoint(s) not found in the namespace: {link.source} -> {link.target}",
                )
        chunk.clear()


def copy_id(namespace: str, exported: str) -> str:
    """The id of the copy in `namespace` of the memory exported as `exported`."""
    return str(uuid.uuid5(COPIES, f"{namespace}\n{exported}"))


def exported_id(body: dict[str, Any]) -> str | None:
    """A memory line's id as stored (ids are kept in lower case)."""
    value = body.get("id")
    return value.lower() if isinstance(value, str) else None


Parsed = tuple[dict[str, Any], Restored] | ExportedLink | str | MnemographError


def parse_line(raw: bytes) -> Parsed:
    """A memory line (its save body and what it restores), a link line, the kind of another
    line (`header`, `end`, or `blank`), or the error of a line that is none of these."""
    text = raw.strip()
    if not text:
        return "blank"
    try:
        value: Any = strict_loads(text)
    except NotStorableJson as exc:
        return InvalidParameter(f"Invalid line: not JSON ({exc})")
    if not isinstance(value, dict):
        return InvalidParameter("Invalid line: must be a JSON object with a 'kind'")
    return _parse_object(cast(dict[str, Any], value))


def _parse_object(
    value: dict[str, Any],
) -> tuple[dict[str, Any], Restored] | ExportedLink | str | MnemographError:
    kind = value.get("kind")
    try:
        if kind == "memory":
            restore = {k: v for k, v in value.items() if k in RESTORED_FIELDS}
            body = {k: v for k, v in value.items() if k not in RESTORED_FIELDS}
            exported = ExportedMemory.model_validate({**restore, "id": value.get("id")})
            return body, exported.restored()
        if kind == "link":
            return ExportedLink.model_validate(value)
    except ValidationError as exc:
        return invalid_from_validation(exc.errors())
    if kind == "header" and (value.get("format"), value.get("version")) != (FORMAT, VERSION):
        return InvalidParameter(
            f"Invalid header: format {value.get('format')!r} version {value.get('version')!r}. "
            f"Must be {FORMAT!r} version {VERSION}"
        )
    if kind in ("header", "end"):
        return str(kind)
    return InvalidParameter(
        f"Invalid kind value: {kind!r}. Must be 'header', 'memory', 'link' or 'end'"
    )
