"""The order of the vector channel's hits in hybrid retrieval: a hit that is much like many other
hits (small talk, repeated phrasing) adds little they do not, so each hit ranks by its cosine
less a share of its mean cosine to its most similar fellow hits (docs/search.md#distinct-hits).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import cast

import numpy as np
import numpy.typing as npt
from threadpoolctl import ThreadpoolController

from service.stores.vector_store import VectorHit

# A 200 × 200 product is too small for BLAS threads: one thread costs a seventh of the CPU.
_BLAS = ThreadpoolController()


def distinct_order(hits: Sequence[VectorHit], penalty: float, neighbours: int) -> list[VectorHit]:
    """The hits best first by cosine - penalty × mean cosine to their `neighbours` most similar
    fellow hits; ties by cosine, then id. Hits without a stored vector get no penalty."""
    redundancy = fellow_similarity([hit.vector for hit in hits], neighbours)
    adjusted = [hit.score - penalty * share for hit, share in zip(hits, redundancy, strict=True)]
    order = sorted(range(len(hits)), key=lambda i: (-adjusted[i], -hits[i].score, hits[i].id))
    return [hits[i] for i in order]


def fellow_similarity(
    vectors: Sequence[npt.NDArray[np.float32] | None], neighbours: int
) -> list[float]:
    """Each vector's mean cosine to its `neighbours` most similar others among those given (0.0
    for a missing vector, or with fewer than two vectors)."""
    present = [i for i, vector in enumerate(vectors) if vector is not None]
    shares = [0.0] * len(vectors)
    count = min(neighbours, len(present) - 1)
    if count <= 0:
        return shares
    stacked: list[npt.NDArray[np.float32]] = [v for v in vectors if v is not None]
    matrix = np.stack(stacked).astype(np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix /= np.where(norms > 0, norms, np.float32(1.0))
    with single_blas_thread():
        cosines: npt.NDArray[np.float32] = matrix @ matrix.T
    np.fill_diagonal(cosines, -np.inf)
    means = np.partition(cosines, -count, axis=1)[:, -count:].mean(axis=1)
    for i, mean in zip(present, means.tolist(), strict=True):
        shares[i] = mean
    return shares


def single_blas_thread() -> AbstractContextManager[object]:
    """BLAS limited to one thread while the context lasts."""
    untyped = _BLAS.limit  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    limit = cast(Callable[..., AbstractContextManager[object]], untyped)
    return limit(limits=1, user_api="blas")
