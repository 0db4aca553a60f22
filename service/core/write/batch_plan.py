"""Planning a batch save inside its transaction: each item as a single save would store it,
in order, with its link and supersession targets resolved against the items before it and the
store as it was, and every item a save would refuse refused alone."""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from service.core.models import LinkSpec, SaveInput, now_utc
from service.core.write.save_plan import Restored, SavePlan, existing_target, plan_memory
from service.core.write.supersede import refuse_cycle, supersede_targets, superseders
from service.errors import Conflict, InvalidParameter, MnemographError, NotFound
from service.stores.graph_store import Tx


async def plan_batch(
    tx: Tx,
    namespace: str,
    model: str,
    dimensions: int,
    valid: Mapping[int, SaveInput],
    restored: Mapping[int, Restored],
) -> BatchPlanner:
    """Read what the items target (their memories, link and supersession targets, the chains of
    supersession above them) and plan every item in order."""
    found = await tx.run(
        "memory_find_many",
        namespace=namespace,
        items=[{"index": i, "id": d.id or "", "key": d.key or ""} for i, d in valid.items()],
    )
    by_index = {int(row["index"]): row for row in found}
    refs = list(
        dict.fromkeys(
            ref
            for data in valid.values()
            for ref in [*(spec.target for spec in data.links), *data.supersedes]
        )
    )
    stored: dict[str, str] = {}
    if refs:
        rows = await tx.run("memory_resolve_refs", ids=refs, keys=refs, namespace=namespace)
        stored = {row["ref"]: row["id"] for row in rows}
    savers = [
        target["id"]
        for index, data in valid.items()
        if data.supersedes and (target := by_index[index]["by_id"] or by_index[index]["by_key"])
    ]
    chains = await superseders(tx, savers)
    planner = BatchPlanner(namespace, model, dimensions, stored, chains)
    for index, data in valid.items():
        planner.add(index, data, by_index[index], restored.get(index))
    return planner


@dataclass(frozen=True)
class Planned:
    """A valid item as it will be stored, with its links' target ids."""

    index: int
    plan: SavePlan
    links: list[tuple[str, LinkSpec]]
    supersedes: list[str] = field(default_factory=list[str])
    restored: Restored | None = None
    text_changed: bool = True  # a create, or the stored memory's text differs


@dataclass
class BatchPlanner:
    """Plans the items in order, as if each were saved after the ones before it: one item per
    memory and per key; link targets resolve to the item itself, an earlier saved item of the
    batch, or the store as it was."""

    namespace: str
    model: str
    dimensions: int
    stored: dict[str, str]
    # memory id -> its superseder: the stored chains above the items' memories, then this batch's
    superseder_of: dict[str, str] = field(default_factory=dict[str, str])
    now: datetime = field(default_factory=now_utc)  # the creation time of the batch's new memories
    planned: list[Planned] = field(default_factory=list[Planned])
    errors: dict[int, MnemographError] = field(default_factory=dict[int, MnemographError])
    _batch: dict[str, str] = field(default_factory=dict[str, str])  # key or id -> id
    _ids: dict[str, int] = field(default_factory=dict[str, int])  # id -> item index
    _keys: dict[str, int] = field(default_factory=dict[str, int])  # key -> item index

    def add(
        self, index: int, data: SaveInput, found: dict[str, Any], restored: Restored | None
    ) -> None:
        try:
            plan, previous_hash = self._plan(data, found, restored)
            self._check_repeat(plan)
            own = {plan.key: plan.id, plan.id: plan.id}
            targets = {ref: self._target(ref, own) for ref in (s.target for s in data.links)}
            missing = [ref for ref, target in targets.items() if target is None]
            if missing:
                raise NotFound(f"Link target(s) not found: {', '.join(missing)}")
            superseded = {ref: self._target(ref, own) for ref in data.supersedes}
            old_ids, unknown = supersede_targets(plan.id, data.supersedes, superseded)
            if unknown:
                raise NotFound(f"Superseded memory(ies) not found: {', '.join(unknown)}")
            ref_of = {str(memory_id): ref for ref, memory_id in superseded.items()}
            refuse_cycle(plan.id, old_ids, self.superseder_of, ref_of)
        except MnemographError as exc:
            self.errors[index] = exc
            return
        links = [(str(targets[spec.target]), spec) for spec in data.links]
        changed = plan.hash != previous_hash
        self.planned.append(Planned(index, plan, links, old_ids, restored, changed))
        self._ids[plan.id] = self._keys[plan.key] = index
        self._batch.update(own)
        self.superseder_of.update(dict.fromkeys(old_ids, plan.id))

    def _check_repeat(self, plan: SavePlan) -> None:
        repeats = [
            (f"key '{plan.key}'", self._keys.get(plan.key)),
            (f"memory {plan.id}", self._ids.get(plan.id)),
        ]
        for what, earlier in repeats:
            if earlier is not None:
                raise InvalidParameter(
                    f"Invalid memories item: {what} is already saved by item {earlier} of "
                    "this batch"
                )

    def _target(self, ref: str, own: dict[str, str]) -> str | None:
        return own.get(ref) or self._batch.get(ref) or self.stored.get(ref)

    def _plan(
        self, data: SaveInput, found: dict[str, Any], restored: Restored | None
    ) -> tuple[SavePlan, str | None]:
        """As a single save plans it: update the memory found by id (or key), else create; an
        import keeps the exported creation time. With the stored text's hash (None: a create)."""
        existing = existing_target(self.namespace, data, found)
        by_key = found["by_key"]
        if existing is not None and by_key is not None and by_key["id"] != existing["id"]:
            raise Conflict(f"Key '{data.key}' is already used by memory {by_key['id']}")
        plan = plan_memory(
            self.namespace,
            data,
            memory_id=existing["id"] if existing else (data.id or str(uuid.uuid4())),
            key=data.key or (existing["key"] if existing else None),
            created_at=restored.created_at
            if restored
            else (existing["created_at"] if existing else self.now),
            embedder_model=self.model,
            dimensions=self.dimensions,
        )
        if existing is None:
            return plan, None
        return replace(plan, created=False), existing["content_hash"]

    def link_rows(self) -> list[dict[str, Any]]:
        """link_batch_upsert rows, one per (source, target, type) (the last one given wins);
        `seq` keeps the creation order of the whole batch."""
        base = time.time_ns() // 1000 * 1000
        unique = {
            (p.plan.id, target, spec.type): spec for p in self.planned for target, spec in p.links
        }
        pairs = [(source, target, spec) for (source, target, _), spec in unique.items()]
        return [
            {
                "source_id": source,
                "target_id": target,
                "type": spec.type,
                "weight": spec.weight,
                "term": spec.term,
                "seq": base + number,
            }
            for number, (source, target, spec) in enumerate(pairs)
        ]


def changed_texts(planned: Sequence[Planned]) -> tuple[str, ...]:
    """The distinct texts to embed: those of creates and of memories whose text changed."""
    return tuple(dict.fromkeys(p.plan.vector_text for p in planned if p.text_changed))
