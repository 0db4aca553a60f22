"""Supersession: a newer memory replaces older ones (contract §4, lifecycle additions).

Neo4j records it first (`superseded_by`, `superseded_at`, a SUPERSEDES relationship, the old
memories' vectors marked pending), then both vector collections get the `superseded` payload
flag that keeps them out of vector search, then the pending marks are cleared; a crash between
leaves them pending for `reconcile`, which writes the flag with the vector.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from service.core.models import now_utc
from service.errors import InvalidParameter
from service.stores.graph_store import GraphStore, Tx
from service.stores.vector_store import VectorStore

Row = dict[str, Any]


def supersede_targets(
    new_id: str, refs: Sequence[str], resolved: Mapping[str, str | None]
) -> tuple[list[str], list[str]]:
    """Ids of the memories `refs` name (once each) and the refs that name none; a memory that
    would supersede itself is refused."""
    ids: list[str] = []
    missing: list[str] = []
    for ref in dict.fromkeys(refs):
        target = resolved.get(ref)
        if target is None:
            missing.append(ref)
        elif target == new_id:
            raise InvalidParameter(
                f"Invalid supersedes value: '{ref}' is the memory being saved. Must name other "
                "memories of the namespace"
            )
        elif target not in ids:
            ids.append(target)
    return ids, missing


async def superseders(tx: Tx, ids: Sequence[str]) -> dict[str, str]:
    """Memory id → its superseder's id, along the chains of supersession above `ids`."""
    if not ids:
        return {}
    rows = await tx.run("memory_superseders", ids=list(ids))
    return {row["id"]: row["superseded_by"] for row in rows}


def refuse_cycle(
    new_id: str, old_ids: Sequence[str], superseder_of: Mapping[str, str], ref_of: Mapping[str, str]
) -> None:
    """Refuse to supersede a memory that supersedes the saved one, directly or through others:
    both would then be superseded and drop out of every search."""
    olds = set(old_ids)
    seen: set[str] = set()
    current = superseder_of.get(new_id)
    while current is not None and current not in seen:
        if current in olds:
            raise InvalidParameter(
                f"Invalid supersedes value: '{ref_of.get(current, current)}' supersedes the "
                "memory being saved (directly or through others). Must name memories that do not"
            )
        seen.add(current)
        current = superseder_of.get(current)


async def record_supersession(tx: Tx, pairs: Sequence[tuple[str, Sequence[str]]]) -> list[Row]:
    """Write `(new id, old ids)` supersessions in the transaction; rows of the memories newly
    flagged (`id`, `content_hash`, `was_synced`)."""
    rows = [{"id": new_id, "old_ids": list(old)} for new_id, old in pairs if old]
    if not rows:
        return []
    return await tx.run("memory_supersede", rows=rows, now=now_utc())


async def flag_vectors(
    graph: GraphStore, stores: Sequence[VectorStore | None], rows: Sequence[Row], superseded: bool
) -> None:
    """Set the `superseded` flag in every vector collection, then clear the pending marks the
    transaction set (not those of memories whose vector was pending for another write)."""
    if not rows:
        return
    ids = [row["id"] for row in rows]
    for store in stores:
        if store is not None:
            await store.set_superseded(ids, superseded)
    synced = [
        {"id": row["id"], "content_hash": row["content_hash"]} for row in rows if row["was_synced"]
    ]
    if synced:
        await graph.write("vector_mark_synced", items=synced)
