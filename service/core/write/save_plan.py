"""How a save becomes stored fields: the plan of one memory (fields, key, vector text, content
hash), size checks, link rows and vector points. Pure functions, shared by save and batch."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from service.config import LimitsSettings
from service.core.models import (
    LinkSpec,
    SaveInput,
    content_hash,
    derive_key,
    derive_summary,
    embedding_text,
    epoch_ms,
    memory_size_bytes,
    metadata_json,
    redact,
    text_sha256,
    utf8_len,
)
from service.errors import Conflict, InvalidParameter, PayloadTooLarge
from service.stores.vector_store import VectorPoint


@dataclass(frozen=True)
class SavePlan:
    """One memory as it will be stored: fields, key, creation time, vector text and hash."""

    id: str
    key: str
    created: bool
    created_at: datetime
    fields: dict[str, Any]
    hash: str
    vector_text: str


@dataclass(frozen=True)
class Restored:
    """What an import restores as it was exported, beyond the saved fields."""

    created_at: datetime
    updated_at: datetime
    accessed_at: datetime
    access_count: int
    superseded_by: str | None
    superseded_at: datetime | None

    def row(self) -> dict[str, Any]:
        return {
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "accessed_at": self.accessed_at,
            "access_count": self.access_count,
            "superseded_by": self.superseded_by,
            "superseded_at": self.superseded_at,
        }


def plan_memory(
    namespace: str,
    data: SaveInput,
    memory_id: str,
    key: str | None,
    created_at: datetime,
    embedder_model: str,
    dimensions: int,
) -> SavePlan:
    """The stored fields, vector text and content hash of one memory."""
    title = redact(data.title)
    content = redact(data.content)
    key = key or derive_key(data.type, title, content, memory_id)
    summary = redact(data.summary) if data.summary is not None else derive_summary(content)
    fields: dict[str, Any] = {
        "namespace": namespace,
        "key": key,
        "type": data.type,
        "title": title,
        "summary": summary,
        "content": content,
        "tags": list(dict.fromkeys(data.tags)),
        "tags_text": " ".join(data.tags),
        "score": data.score,
        "metadata_json": metadata_json(data.metadata),
        "session_id": data.session_id,
        "text_sha256": text_sha256(content),
        "previous_hash": None,
    }
    fields["size_bytes"] = memory_size_bytes(fields, dimensions)
    text = embedding_text(title, content)
    payload = {
        "namespace": namespace,
        "type": data.type,
        "tags": fields["tags"],
        "key": key,
        "created_at": epoch_ms(created_at),
        "score": data.score,
    }
    return SavePlan(
        id=memory_id,
        key=key,
        created=True,
        created_at=created_at,
        fields=fields,
        hash=content_hash(text, payload, embedder_model),
        vector_text=text,
    )


def check_sizes(limits: LimitsSettings, data: SaveInput) -> None:
    """Refuse content, metadata or link lists over their limits."""
    size = utf8_len(data.content)
    if size > limits.max_content_bytes:
        raise PayloadTooLarge(
            f"content is {size} bytes; the limit is {limits.max_content_bytes} bytes "
            "(limits.max_content_bytes)"
        )
    meta = utf8_len(metadata_json(data.metadata))
    if meta > limits.max_metadata_bytes:
        raise PayloadTooLarge(
            f"metadata is {meta} bytes of JSON; the limit is {limits.max_metadata_bytes} bytes"
        )
    if len(data.links) > limits.max_links_per_save:
        raise InvalidParameter(
            f"Invalid links value: {len(data.links)} links. Must be at most "
            f"{limits.max_links_per_save} per save"
        )


def vector_point(
    namespace: str, plan: SavePlan, vector: npt.NDArray[np.float32], superseded: bool = False
) -> VectorPoint:
    """The plan's vector with its filter payload."""
    return VectorPoint(
        id=plan.id,
        vector=vector,
        namespace=namespace,
        type=plan.fields["type"],
        tags=tuple(plan.fields["tags"]),
        key=plan.key,
        created_at_ms=epoch_ms(plan.created_at),
        score=plan.fields["score"],
        superseded=superseded,
    )


def row_point(row: dict[str, Any], vector: npt.NDArray[np.float32]) -> VectorPoint:
    """A vector point from a stored memory row (id, namespace, key, type, tags, score,
    created_at, superseded_by), for reconcile and the context indexer."""
    return VectorPoint(id=row["id"], vector=vector, **row_payload(row))


def row_payload(row: dict[str, Any]) -> dict[str, Any]:
    """The payload fields of a stored memory row's vector point."""
    return {
        "namespace": row["namespace"],
        "type": row["type"],
        "tags": tuple(row["tags"] or ()),
        "key": row["key"],
        "created_at_ms": epoch_ms(row["created_at"]),
        "score": row["score"],
        "superseded": row.get("superseded_by") is not None,
    }


def stored_fields(plan: SavePlan) -> dict[str, Any]:
    """The plan's fields as memory_upsert takes them (bookkeeping fields dropped)."""
    return {k: v for k, v in plan.fields.items() if not k.startswith("previous_")}


def batch_row(plan: SavePlan, restored: Restored | None = None) -> dict[str, Any]:
    return {
        **stored_fields(plan),
        "id": plan.id,
        "created_at": plan.created_at,
        "content_hash": plan.hash,
        "restore": restored.row() if restored else None,
    }


def existing_target(
    namespace: str, data: SaveInput, found: dict[str, Any]
) -> dict[str, Any] | None:
    """The memory a save updates, or None for a create; refuses ids of other namespaces, and a
    new id under a key another memory holds (that memory is not this one: an import line or a
    save naming its own id must not overwrite it)."""
    by_id, by_key = found["by_id"], found["by_key"]
    if by_id is not None:
        if by_id["namespace"] != namespace:
            raise Conflict(f"Memory id {data.id} is taken")
        return by_id
    if data.id and by_key is not None:
        raise Conflict(f"Key '{data.key}' is already used by memory {by_key['id']}")
    return by_key


def link_rows(links: Sequence[LinkSpec]) -> list[dict[str, Any]]:
    """link_upsert rows, each target by ref (id or key); `seq` keeps creation order within one
    call."""
    base = time.time_ns() // 1000 * 1000
    return [
        {
            "target": spec.target,
            "type": spec.type,
            "weight": spec.weight,
            "term": spec.term,
            "seq": base + index,
        }
        for index, spec in enumerate(links)
    ]
