"""The openai-compatible provider against a real `/v1/embeddings` server on loopback that
serves the local MiniLM model (the same request and response shapes as TEI, vLLM, OpenAI)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import uvicorn
from fastapi import FastAPI

from service.config import EmbeddingSettings
from service.errors import BackendUnavailable
from service.stores.embeddings import LocalMiniLM, OpenAICompatibleEmbedder
from service.stores.neo4j_local import free_port


@pytest.fixture(scope="module")
def embeddings_url() -> Iterator[str]:
    model = LocalMiniLM()
    app = FastAPI()

    @app.post("/v1/embeddings")
    def embeddings(body: dict[str, Any]) -> dict[str, Any]:
        vectors = model.embed_sync(body["input"])
        data = [{"index": i, "embedding": v.tolist()} for i, v in enumerate(vectors)]
        return {"model": body["model"], "data": list(reversed(data))}

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


async def test_remote_vectors_match_the_local_model_in_input_order(
    embeddings_url: str, embedder: LocalMiniLM
) -> None:
    remote = OpenAICompatibleEmbedder(
        EmbeddingSettings(provider="openai-compatible", url=embeddings_url, batch_size=2)
    )
    texts = ["graph databases", "vector search", "a cat on a mat"]
    try:
        vectors = await remote.embed(texts)
    finally:
        await remote.close()
    assert vectors.shape == (3, 384)
    assert np.allclose(vectors, embedder.embed_sync(texts), atol=1e-5)


async def test_wrong_dimensions_from_the_server_are_a_backend_error(embeddings_url: str) -> None:
    remote = OpenAICompatibleEmbedder(
        EmbeddingSettings(provider="openai-compatible", url=embeddings_url, dimensions=768)
    )
    try:
        with pytest.raises(BackendUnavailable) as caught:
            await remote.embed(["x"])
    finally:
        await remote.close()
    assert "expected 1 vectors of 768 dimensions" in caught.value.message
