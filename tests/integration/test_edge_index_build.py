"""The embedded engine's HNSW build stops the whole process (it holds the GIL), so it waits until
nothing in the process has touched its activity for `idle_s`, not only its own store."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import numpy as np
import pytest

from service.stores.activity import Activity
from service.stores.vector_store import EdgeVectorStore, VectorPoint


def point(index: int) -> VectorPoint:
    vector = np.eye(4, dtype=np.float32)[index % 4]
    return VectorPoint(
        f"00000000-0000-0000-0000-00000000000{index}", vector, "ns", "note", (), f"k{index}", 0
    )


async def test_no_index_is_built_while_another_part_of_the_process_is_busy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    activity = Activity()
    store = EdgeVectorStore(tmp_path / "edge", 4, index_threshold=3, idle_s=0.3, activity=activity)
    builds: list[float] = []

    async def recorded_build() -> bool:
        builds.append(time.monotonic())
        return True

    monkeypatch.setattr(store, "build_index", recorded_build)
    await store.open()
    try:
        await store.upsert([point(i) for i in range(3)])
        busy_until = time.monotonic() + 1.2  # the store is idle; a request, say, is not
        while time.monotonic() < busy_until:
            activity.touch()
            await asyncio.sleep(0.05)
        activity.touch()
        quiet_from = time.monotonic()
        assert builds == []
        await asyncio.sleep(1.0)
        assert builds
        assert builds[0] - quiet_from >= 0.3
    finally:
        await store.close()
