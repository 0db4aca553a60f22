"""Seeding stores for tests and benchmarks the way users load many memories: the batch path
(POST /v1/memories/batch), never a path of its own."""

from __future__ import annotations

from collections.abc import Sequence

from service.core.models import SaveInput
from service.core.write.batch import BatchSaver


async def save_in_batches(saver: BatchSaver, namespace: str, items: Sequence[SaveInput]) -> None:
    """`items` in batches of the largest size allowed. Links go in a second pass (the linking
    items saved again by key, with their links only added), so a link may name an item that
    comes later; every item must be saved (else `RuntimeError`)."""
    unnamed = [n for n, item in enumerate(items) if item.links and not (item.key or item.id)]
    if unnamed:
        raise ValueError(f"items {unnamed[:5]} have links but no key or id to save them again by")
    size = saver.settings.limits.max_batch
    unlinked = [item.model_copy(update={"links": []}) for item in items]
    linking = [item.model_copy(update={"supersedes": []}) for item in items if item.links]
    for batch in (unlinked, linking):
        for start in range(0, len(batch), size):
            chunk = [as_body(item) for item in batch[start : start + size]]
            answer = await saver.save(namespace, chunk)
            if answer["failed"]:
                failed = [r for r in answer["results"] if not r["success"]]
                raise RuntimeError(f"{answer['failed']} items not saved: {failed[:3]}")


def as_body(item: SaveInput) -> dict[str, object]:
    """A memory_save body, as a client sends it."""
    return item.model_dump(mode="json", exclude_unset=True)
