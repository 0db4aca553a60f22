"""A memory service of its own whose synced marks wait `delay_s` before they are written."""

from __future__ import annotations

from service.core.memories import MemoryService
from service.core.stores import Stores
from service.core.write.synced_marks import SyncedMarks


def service_with_marks(memories: MemoryService, delay_s: float) -> MemoryService:
    """The session service's stores and settings, with its own queue of synced marks."""
    service = MemoryService(
        memories.settings,
        Stores(memories.stores.graph, memories.stores.vectors, memories.stores.embedder),
    )
    service.saver.marks = SyncedMarks(memories.stores.graph, delay_s=delay_s)
    return service
