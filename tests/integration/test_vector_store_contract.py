"""One contract suite for both vector engines: Qdrant Edge in-process and a real Qdrant server."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import pytest_asyncio

from service.filters import MemoryFilters
from service.stores.embeddings import LocalMiniLM
from service.stores.vector_store import (
    EdgeVectorStore,
    VectorFilter,
    VectorHit,
    VectorPoint,
    VectorStore,
)
from tests.conftest import fresh_collection
from tests.qdrant_process import QdrantPeer


@pytest_asyncio.fixture(params=["edge", "server"])
async def store(
    request: pytest.FixtureRequest, tmp_path: Path, qdrant_server: QdrantPeer
) -> AsyncIterator[VectorStore]:
    if request.param == "server":
        async with fresh_collection(qdrant_server) as server:
            yield server
        return
    engine = EdgeVectorStore(tmp_path / "edge", 384)
    await engine.open()
    yield engine
    await engine.close()


def ids(hits: list[VectorHit]) -> list[str]:
    return sorted(hit.id for hit in hits)


def only(**filters: Any) -> VectorFilter:
    """Namespace `ns` with these memory filters."""
    return VectorFilter("ns", MemoryFilters(**filters))


def moment(epoch_ms: int) -> datetime:
    return datetime.fromtimestamp(epoch_ms / 1000, UTC)


def point(
    vector: np.ndarray,
    namespace: str = "ns",
    memory_type: str = "note",
    tags: tuple[str, ...] = (),
    created: int = 1_000,
    key: str | None = None,
) -> VectorPoint:
    point_id = str(uuid.uuid4())
    return VectorPoint(
        id=point_id,
        vector=vector.astype(np.float32),
        namespace=namespace,
        type=memory_type,
        tags=tags,
        key=key or point_id,
        created_at_ms=created,
    )


async def test_nearest_vector_comes_first_with_cosine_score(
    store: VectorStore, embedder: LocalMiniLM
) -> None:
    vectors = embedder.embed_sync(
        ["the cat sleeps on the sofa", "stock markets fell sharply", "a kitten naps on a couch"]
    )
    points = [point(v) for v in vectors]
    await store.upsert(points)
    query = embedder.embed_sync(["a small cat resting on furniture"])[0]
    hits = await store.search(query, VectorFilter("ns"), limit=3)
    cosine = {p.id: float(v @ query) for p, v in zip(points, vectors, strict=True)}
    assert [hit.id for hit in hits] == sorted(cosine, key=lambda i: -cosine[i])
    assert hits[-1].id == points[1].id
    for hit in hits:
        assert hit.score == pytest.approx(cosine[hit.id], abs=1e-4)


async def test_namespace_type_tag_and_date_filters_are_applied_in_the_engine(
    store: VectorStore,
) -> None:
    base = np.ones(384, dtype=np.float32)
    a = point(base, namespace="ns", memory_type="decision", tags=("x", "y"), created=100)
    b = point(base, namespace="ns", memory_type="note", tags=("x",), created=200)
    c = point(base, namespace="other", memory_type="decision", tags=("x", "y"), created=300)
    await store.upsert([a, b, c])
    assert ids(await store.search(base, VectorFilter("ns"), 10)) == sorted([a.id, b.id])
    assert ids(await store.search(base, only(types=("decision",)), 10)) == [a.id]
    assert ids(await store.search(base, only(tags=("x", "y")), 10)) == [a.id]
    assert ids(await store.search(base, only(created_from=moment(150)), 10)) == [b.id]
    assert ids(await store.search(base, only(created_to=moment(100)), 10)) == [a.id]


async def test_superseded_points_are_left_out_unless_asked_for_and_still_counted(
    store: VectorStore,
) -> None:
    base = np.ones(384, dtype=np.float32)
    a, b = point(base), point(base)
    flagged = replace(point(base), superseded=True)
    await store.upsert([a, b, flagged])
    assert ids(await store.search(base, VectorFilter("ns"), 10)) == sorted([a.id, b.id])
    await store.set_superseded([a.id, str(uuid.uuid4())], True)  # an unknown id is skipped
    await store.set_superseded([flagged.id], False)
    assert ids(await store.search(base, VectorFilter("ns"), 10)) == sorted([b.id, flagged.id])
    everything = only(include_superseded=True)
    assert ids(await store.search(base, everything, 10)) == sorted([a.id, b.id, flagged.id])
    assert await store.count("ns") == 3


async def test_stored_vectors_are_read_back_and_unknown_ids_skipped(store: VectorStore) -> None:
    eye = np.eye(384, dtype=np.float32)
    first, second = point(eye[3]), point(eye[7])
    await store.upsert([first, second])
    found = await store.vectors_of([second.id, str(uuid.uuid4()), first.id])
    assert sorted(found) == sorted([first.id, second.id])
    assert found[first.id].tolist() == eye[3].tolist()
    assert found[second.id].tolist() == eye[7].tolist()
    assert await store.vectors_of([]) == {}


async def test_delete_removes_points_and_counts_follow(store: VectorStore) -> None:
    base = np.ones(384, dtype=np.float32)
    points = [point(base) for _ in range(3)] + [point(base, namespace="other")]
    await store.upsert(points)
    assert await store.count("ns") == 3
    assert await store.count() == 4
    await store.delete([points[0].id])
    assert await store.count("ns") == 2
    assert await store.existing_ids([p.id for p in points]) == {p.id for p in points[1:]}
    assert sorted(await store.all_ids(batch=2)) == sorted(p.id for p in points[1:])


async def test_the_payload_index_count_of_a_namespace_follows_upserts_flags_and_deletes(
    store: VectorStore,
) -> None:
    base = np.ones(384, dtype=np.float32)
    points = [point(base) for _ in range(5)] + [point(base, namespace="other")]
    await store.upsert(points)
    await store.upsert(points[:2])  # the same ids again
    await store.set_superseded([points[2].id], True)
    await store.delete([points[0].id, points[5].id])
    counts = [await store.count("ns", exact=False), await store.count("other", exact=False)]
    assert counts == [await store.count("ns"), await store.count("other")] == [4, 0]


async def test_upsert_of_the_same_id_replaces_the_vector(store: VectorStore) -> None:
    first = point(np.eye(384, dtype=np.float32)[0])
    await store.upsert([first])
    moved = VectorPoint(**{**first.__dict__, "vector": np.eye(384, dtype=np.float32)[1]})
    await store.upsert([moved])
    hits = await store.search(np.eye(384, dtype=np.float32)[1], VectorFilter("ns"), 1)
    assert hits[0].id == first.id
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)
    assert await store.count("ns") == 1


async def test_score_threshold_drops_weak_matches(store: VectorStore) -> None:
    eye = np.eye(384, dtype=np.float32)
    near, far = point(eye[0]), point(eye[1])
    await store.upsert([near, far])
    hits = await store.search(eye[0], VectorFilter("ns"), 10, score_threshold=0.5)
    assert [h.id for h in hits] == [near.id]


async def test_a_search_brings_the_stored_vectors_only_when_asked(store: VectorStore) -> None:
    eye = np.eye(384, dtype=np.float32)
    stored = point(eye[0] * 0.6 + eye[1] * 0.8)
    await store.upsert([stored])
    plain = await store.search(eye[0], VectorFilter("ns"), 1)
    assert plain[0].vector is None
    hit = (await store.search(eye[0], VectorFilter("ns"), 1, with_vectors=True))[0]
    assert hit.vector is not None
    assert hit.vector.dtype == np.float32
    np.testing.assert_allclose(hit.vector[:3], [0.6, 0.8, 0.0], atol=1e-6)
    assert hit.score == pytest.approx(0.6, abs=1e-5)
    assert (hit.id, hit.created_at_ms) == (plain[0].id, plain[0].created_at_ms)
    assert (hit.id, hit.created_at_ms) == (stored.id, 1_000)


async def vectors_found(store: EdgeVectorStore, query: np.ndarray) -> dict[str, np.ndarray]:
    hits = await store.search(query, VectorFilter("ns"), 2, None, with_vectors=True)
    return {hit.id: hit.vector for hit in hits if hit.vector is not None}


async def created_found(store: EdgeVectorStore, query: np.ndarray) -> dict[str, int | None]:
    hits = await store.search(query, VectorFilter("ns"), 2, None, with_vectors=True)
    return {hit.id: hit.created_at_ms for hit in hits}


async def test_vectors_and_creation_times_handed_out_follow_upserts_deletes_and_a_reopen(
    tmp_path: Path,
) -> None:
    eye = np.eye(384, dtype=np.float32)
    store = EdgeVectorStore(tmp_path / "edge", 384, recent_points=1)
    await store.open()
    first, other = point(eye[0] * 3.0, created=1_001), point(eye[0] + eye[2], created=1_002)
    await store.upsert([first, other])  # only `other` stays among the recent points
    assert await created_found(store, eye[0]) == {first.id: 1_001, other.id: 1_002}
    hits = await vectors_found(store, eye[0])
    np.testing.assert_allclose(hits[first.id][:3], [1.0, 0.0, 0.0], atol=1e-6)  # as stored
    np.testing.assert_allclose(hits[other.id][:3], [0.70710677, 0.0, 0.70710677], atol=1e-6)
    await store.upsert([replace(first, vector=eye[1], created_at_ms=1_003)])
    assert await created_found(store, eye[1]) == {first.id: 1_003, other.id: 1_002}
    await store.delete([other.id])
    await store.close()
    await store.open()  # nothing recent: read from the shard
    assert await created_found(store, eye[1]) == {first.id: 1_003}
    hits = await vectors_found(store, eye[1])
    assert list(hits) == [first.id]
    np.testing.assert_allclose(hits[first.id][:3], [0.0, 1.0, 0.0], atol=1e-6)
    await store.close()
