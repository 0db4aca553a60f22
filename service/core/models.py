"""The Memory and Link objects of docs/contract.md §1: input validation and the pure derivations.

Key derivation, summary derivation, `<private>` redaction, sizes and the output shapes.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import unicodedata
from datetime import UTC, datetime
from functools import lru_cache
from typing import Annotated, Any, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    model_validator,
)

from service.core.inputs import ToolInput, drop_nulls
from service.core.results import LinkView, MemoryView
from service.core.scalars import NotAFlag, storable_metadata
from service.core.sorting import combined_score

KEY_PATTERN = r"^[^\s/\x00-\x1f\x7f-\x9f]{1,512}$"  # no C0 or C1 control
TYPE_PATTERN = r"^[a-z0-9_-]{1,64}$"
LINK_TYPE_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
UUID_PATTERN = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
REDACTED = "[REDACTED]"
SUMMARY_DERIVED_CHARS = 200
MAX_SUMMARY_CHARS = 2000
BYTES_PER_LINK = 64

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_PRIVATE_SPAN = re.compile(r"<private>.*?(?:</private>|\Z)", re.IGNORECASE | re.DOTALL)

MemoryKey = Annotated[str, StringConstraints(pattern=KEY_PATTERN)]
Tag = Annotated[str, StringConstraints(min_length=1, max_length=64)]
Content = Annotated[str, StringConstraints(min_length=1)]
Title = Annotated[str, StringConstraints(max_length=512)]
MemoryType = Annotated[str, StringConstraints(pattern=TYPE_PATTERN)]
Summary = Annotated[str, StringConstraints(max_length=MAX_SUMMARY_CHARS)]
Tags = Annotated[list[Tag], Field(max_length=32)]
Score = Annotated[float, Field(ge=0.0, le=100.0), NotAFlag]
SessionId = Annotated[str, StringConstraints(min_length=1, max_length=128)]
# Lower-cased: Qdrant reads a UUID point id in any case, so "A1…" and "a1…" must be one id.
MemoryId = Annotated[str, StringConstraints(pattern=UUID_PATTERN, to_lower=True)]
LinkType = Annotated[str, StringConstraints(pattern=LINK_TYPE_PATTERN)]
Term = Annotated[str, StringConstraints(max_length=128)]
Weight = Annotated[float, Field(ge=0.0, le=1.0), NotAFlag]


class LinkSpec(BaseModel):
    """A link to create with a save: the target by `key` or `id`."""

    model_config = ConfigDict(extra="forbid")

    key: MemoryKey | None = Field(default=None, description="Target memory key.")
    id: str | None = Field(default=None, description="Target memory id.")
    weight: Weight = Field(default=0.5, description="Link weight 0–1.")
    type: LinkType = Field(default="related", description="Link type.")
    term: Term | None = Field(default=None, description="Optional short label.")

    @model_validator(mode="after")
    def _one_target(self) -> Self:
        if (self.key is None) == (self.id is None):
            raise ValueError("each link needs exactly one of 'key' or 'id'")
        return self

    @property
    def target(self) -> str:
        return self.key if self.key is not None else str(self.id)


# Parameters of memory_save, described once: the MCP schema and OpenAPI both read these.
ContentParam = Annotated[
    Content,
    Field(
        description="The memory text (≤ 100 KB). <private>…</private> spans are redacted.",
        examples=["Decided to use sql.js for zero native deps"],
    ),
]
TitleParam = Annotated[
    Title, Field(description="Short title (≤ 512 chars).", examples=["Use sql.js for storage"])
]
TypeParam = Annotated[
    MemoryType,
    Field(
        description="Memory type, [a-z0-9_-]{1,64}.",
        examples=["decision", "design", "bugfix", "feature", "observation"],
    ),
]
KeyParam = Annotated[
    MemoryKey | None,
    Field(
        description="Unique key in the namespace (upsert by key); derived when absent.",
        examples=["decision:use-sql-js:1a2b3c4d"],
    ),
]
SummaryParam = Annotated[
    Summary | None,
    Field(
        description="≤ 2,000 chars; derived from content when absent.",
        examples=["sql.js keeps the install free of native dependencies"],
    ),
]
TagsParam = Annotated[Tags, Field(description="≤ 32 tags of ≤ 64 chars.", examples=[["arch"]])]
ScoreParam = Annotated[
    Score | None, Field(description="Importance 0–100; null means unknown.", examples=[80])
]
MetadataParam = Annotated[
    dict[str, Any],
    AfterValidator(storable_metadata),
    Field(description="Any JSON object ≤ 16 KB.", examples=[{"source": "standup"}]),
]
SessionParam = Annotated[
    SessionId | None,
    Field(description="The agent session this memory belongs to.", examples=["session-2026-11-24"]),
]
LinksParam = Annotated[
    list[LinkSpec],
    Field(
        description="Links to create: [{key or id, weight (0.5), type (related), term}].",
        examples=[[{"key": "decision:use-sql-js:1a2b3c4d", "weight": 0.8}]],
    ),
]
IdParam = Annotated[
    MemoryId | None,
    Field(
        description="UUID to use when creating (server-generated otherwise).",
        examples=["0b6f3c9e-8f1e-4c55-9a57-2f1d7f0c1a2b"],
    ),
]
MAX_SUPERSEDES = 32
SupersedesParam = Annotated[
    list[Annotated[str, StringConstraints(min_length=1, max_length=512)]],
    Field(
        max_length=MAX_SUPERSEDES,
        description="Ids or keys of memories this one replaces (≤ 32): they get superseded_by "
        "and are left out of search and retrieval unless include_superseded is true.",
        examples=[["decision:use-sql-js:1a2b3c4d"]],
    ),
]
WeightParam = Annotated[Weight, Field(description="Link weight 0–1.", examples=[0.8])]
LinkTypeParam = Annotated[LinkType, Field(description="Link type.", examples=["related"])]
TermParam = Annotated[
    Term | None, Field(description="Optional short label.", examples=["implements"])
]


class SaveInput(ToolInput):
    """Parameters of memory_save (and the body of POST /v1/memories)."""

    nullable = ("tags", "metadata", "links", "supersedes")

    content: ContentParam
    title: TitleParam = ""
    type: TypeParam = "note"
    key: KeyParam = None
    summary: SummaryParam = None
    tags: TagsParam = Field(default_factory=list[str])
    score: ScoreParam = None
    metadata: MetadataParam = Field(default_factory=dict[str, Any])
    session_id: SessionParam = None
    links: LinksParam = Field(default_factory=list[LinkSpec])
    supersedes: SupersedesParam = Field(default_factory=list[str])
    id: IdParam = None


class UpdateInput(BaseModel):
    """PATCH /v1/memories/{ref}: any subset of the save fields."""

    model_config = ConfigDict(extra="forbid")

    content: ContentParam | None = None
    title: TitleParam | None = None
    type: TypeParam | None = None
    key: KeyParam = None
    summary: SummaryParam = None
    tags: TagsParam | None = None
    score: ScoreParam = None
    metadata: MetadataParam | None = None
    session_id: SessionParam = None
    links: LinksParam | None = None
    supersedes: SupersedesParam | None = None

    @model_validator(mode="before")
    @classmethod
    def null_means_unchanged(cls, data: Any) -> Any:
        """A null field that a memory cannot be without, or a null list or object, leaves the
        memory's value as it is (null is absent, as in a save)."""
        fields = ("content", "title", "type", "tags", "metadata", "links", "supersedes")
        return drop_nulls(data, fields)


def redact(text: str) -> str:
    """Replace `<private>…</private>` spans (an unclosed one runs to the end) by `[REDACTED]`."""
    return _PRIVATE_SPAN.sub(REDACTED, text)


def derive_summary(content: str) -> str:
    """The first ~200 characters of the content, cut at a word boundary, with `…` when cut."""
    flat = " ".join(content.split())
    if len(flat) <= SUMMARY_DERIVED_CHARS:
        return flat
    cut = flat[:SUMMARY_DERIVED_CHARS]
    space = cut.rfind(" ")
    if space > SUMMARY_DERIVED_CHARS // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.") + "…"


def slugify(text: str, max_chars: int = 48) -> str:
    """Lower-case ASCII words joined by `-`; `untitled` when nothing is left."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return slug[:max_chars].rstrip("-") or "untitled"


def derive_key(memory_type: str, title: str, content: str, memory_id: str) -> str:
    """`<type>:<slug(title)>:<8 hex of id>`; the content's first words stand in for no title."""
    source = title or " ".join(content.split()[:6])
    return f"{memory_type}:{slugify(source)}:{memory_id.replace('-', '')[:8]}"


def utf8_len(text: str | None) -> int:
    return len(text.encode("utf-8")) if text else 0


def metadata_json(metadata: dict[str, Any]) -> str:
    return json.dumps(metadata, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def memory_size_bytes(fields: dict[str, Any], dimensions: int) -> int:
    """Logical size of one memory (docs/contract.md §4 memory_stats), links excluded."""
    texts = ("key", "type", "title", "summary", "content", "session_id", "metadata_json")
    size = sum(utf8_len(fields.get(name)) for name in texts)
    tags: list[str] = fields.get("tags") or []
    size += sum(utf8_len(tag) for tag in tags)
    return size + 4 * dimensions


def embedding_text(title: str, content: str) -> str:
    return f"{title}\n\n{content}" if title else content


def content_hash(text: str, payload: dict[str, Any], model: str) -> str:
    """Changes whenever the vector or its Qdrant payload must be rewritten."""
    material = json.dumps([model, text, payload], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


def text_sha256(content: str) -> str:
    """The hash of a memory's content alone: equal contents under different keys are duplicates."""
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


def iso_ms(value: datetime | int | None) -> str | None:
    """ISO-8601 UTC with milliseconds, e.g. `2026-01-10T12:00:00.000Z` (from a datetime or
    epoch milliseconds)."""
    if value is None:
        return None
    millis = value if isinstance(value, int) else epoch_ms(value)
    seconds, ms = divmod(millis, 1000)
    return f"{_iso_second(seconds)}.{ms:03d}Z"


@lru_cache(maxsize=4096)
def _iso_second(seconds: int) -> str:
    """`YYYY-MM-DDTHH:MM:SS` of an epoch second in UTC. Cached: the links one save writes share
    their second, and a memory's links are formatted on every read of it."""
    t = time.gmtime(seconds)
    return "%04d-%02d-%02dT%02d:%02d:%02d" % (  # noqa: UP031 - hot path
        t.tm_year,
        t.tm_mon,
        t.tm_mday,
        t.tm_hour,
        t.tm_min,
        t.tm_sec,
    )


def epoch_ms(value: datetime) -> int:
    """Milliseconds since the epoch, exact for millisecond datetimes."""
    delta = value - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def now_utc() -> datetime:
    """Now, truncated to milliseconds (what is stored and shown)."""
    now = datetime.now(UTC)
    return now.replace(microsecond=(now.microsecond // 1000) * 1000)


def link_view(link: dict[str, Any]) -> LinkView:
    """A Link as clients see it (§1), from a stored link's map."""
    return link_of(
        link["id"],
        link["key"],
        link["type"],
        link.get("term"),
        link["weight"],
        link.get("score"),
        link.get("summary"),
        link.get("created_at"),
    )


def link_of(
    target_id: str,
    key: str,
    link_type: str,
    term: str | None,
    weight: float,
    score: float | None,
    summary: str | None,
    created: datetime | int | None,
) -> LinkView:
    """A Link as clients see it (§1): the target's id/key/summary/score and the edge's fields."""
    return {
        "id": target_id,
        "key": key,
        "type": link_type,
        "term": term,
        "weight": weight,
        "score": score,
        "combined_score": round(combined_score(weight, score), 4),
        "summary": summary,
        "created_at": iso_ms(created),
    }


def memory_view(memory: dict[str, Any], links: list[LinkView]) -> MemoryView:
    """A full Memory (§1) from a stored row and its links, already filtered and ordered."""
    metadata = memory.get("metadata_json")
    return {
        "id": memory["id"],
        "key": memory["key"],
        "namespace": memory["namespace"],
        "type": memory["type"],
        "title": memory.get("title") or "",
        "summary": memory.get("summary") or "",
        "content": memory.get("content") or "",
        "tags": list(memory.get("tags") or []),
        "score": memory.get("score"),
        "metadata": json.loads(metadata) if metadata else {},
        "session_id": memory.get("session_id"),
        "created_at": iso_ms(memory.get("created_at")),
        "updated_at": iso_ms(memory.get("updated_at")),
        "accessed_at": iso_ms(memory.get("accessed_at")),
        "access_count": memory.get("access_count") or 0,
        "superseded_by": memory.get("superseded_by"),
        "superseded_at": iso_ms(memory.get("superseded_at")),
        "supersedes": [old_id for _, old_id in sorted(memory.get("supersedes") or [])],
        "links": links,
    }
