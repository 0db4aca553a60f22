"""Concurrent clients against a real server, checked against a sequential model: K clients run
random saves, PATCHes of single fields, batches, links, unlinks and deletes on a few shared
keys, logging every acknowledged operation with its start and end; afterwards each stored field
must hold the value of an acknowledged write that no other acknowledged write of that field
followed in real time (so some order consistent with every client's own order explains it),
every deleted key must have stayed deleted, each memory's vector must be its final text,
and the namespace's counters must match what is stored."""

from __future__ import annotations

import asyncio
import itertools
import random
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from service.core.models import embedding_text
from tests.e2e.conftest import SOAK

CLIENTS = 8
KEYS = tuple(f"shared-{n}" for n in range(4))
SECONDS = 60.0 if SOAK else 15.0
FIELDS = ("content", "title", "tags", "score", "metadata")


@dataclass
class Op:
    """One acknowledged write: what it wrote to which key, and when it ran."""

    kind: str
    key: str
    started: float
    ended: float
    values: dict[str, Any] = field(default_factory=dict[str, Any])


class Workload:
    """Unique values per write, so every stored value names the write that made it."""

    def __init__(self) -> None:
        self._numbers: Iterator[int] = itertools.count(1)
        self.log: list[Op] = []

    def values(self, fields: tuple[str, ...]) -> dict[str, Any]:
        n = next(self._numbers)
        every = {
            "content": f"content number {n} of the shared memory",
            "title": f"title {n}",
            "tags": [f"tag-{n}"],
            "score": round(n / 1000, 3),  # unique while under 100,000 writes
            "metadata": {"write": n},
        }
        return {name: every[name] for name in fields}


async def timed(
    client: httpx.AsyncClient, method: str, path: str, **kwargs: Any
) -> tuple[httpx.Response, float, float]:
    started = time.monotonic()
    response = await client.request(method, path, **kwargs)
    return response, started, time.monotonic()


async def run_client(
    client: httpx.AsyncClient, namespace: str, work: Workload, seed: int, until: float
) -> None:
    rng = random.Random(seed)
    params = {"namespace": namespace}
    while time.monotonic() < until:
        key = rng.choice(KEYS)
        roll = rng.random()
        if roll < 0.3:
            values = work.values(FIELDS)
            response, started, ended = await timed(
                client, "POST", "/v1/memories", params=params, json={"key": key, **values}
            )
            assert response.status_code in (200, 201), response.text
            work.log.append(Op("save", key, started, ended, values))
        elif roll < 0.65:
            name = rng.choice(FIELDS[1:])
            values = work.values((name,))
            response, started, ended = await timed(
                client, "PATCH", f"/v1/memories/{key}", params=params, json=values
            )
            assert response.status_code in (200, 404), response.text
            if response.status_code == 200:
                work.log.append(Op("patch", key, started, ended, values))
        elif roll < 0.75:
            keys = rng.sample(KEYS, 2)
            items = [{"key": k, **work.values(FIELDS)} for k in keys]
            response, started, ended = await timed(
                client, "POST", "/v1/memories/batch", params=params, json={"memories": items}
            )
            assert response.status_code == 200, response.text
            for item, result in zip(items, response.json()["results"], strict=True):
                assert result["success"], result
                values = {k: v for k, v in item.items() if k != "key"}
                work.log.append(Op("save", item["key"], started, ended, values))
        elif roll < 0.93:
            target = rng.choice([k for k in KEYS if k != key])
            method = "PUT" if rng.random() < 0.6 else "DELETE"
            response, started, ended = await timed(
                client, method, f"/v1/memories/{key}/links/{target}", params=params, json=None
            )
            assert response.status_code in (200, 201, 404), response.text
        else:
            response, started, ended = await timed(
                client, "DELETE", f"/v1/memories/{key}", params=params
            )
            assert response.status_code in (200, 404), response.text
            if response.status_code == 200 and response.json()["deleted"]:
                work.log.append(Op("delete", key, started, ended))


def writers(log: list[Op], key: str, name: str) -> list[Op]:
    return [op for op in log if op.key == key and (name in op.values or op.kind == "delete")]


def explained(log: list[Op], key: str, name: str, value: Any) -> str | None:
    """Why `value` cannot be the last write of `name` to `key`, or None when a real-time
    order of the acknowledged writes explains it."""
    makers = [op for op in log if op.key == key and op.values.get(name) == value]
    if len(makers) != 1:
        return f"{key}.{name} = {value!r} was written by {len(makers)} acknowledged writes"
    made = makers[0]
    later = [op for op in writers(log, key, name) if op.started > made.ended]
    if later:
        return f"{key}.{name} = {value!r}, but {later[0].kind} {later[0].values} came after it"
    return None


def deletion_explained(log: list[Op], key: str) -> str | None:
    deletes = [op for op in log if op.key == key and op.kind == "delete"]
    saves = [op for op in log if op.key == key and op.kind == "save"]
    if not saves:
        return None
    if not any(all(save.started <= delete.ended for save in saves) for delete in deletes):
        return f"{key} is gone, but no acknowledged delete came after its last save"
    return None


def embedded(memory: dict[str, Any]) -> str:
    """The text a memory's vector is the embedding of."""
    return embedding_text(memory["title"] or "", memory["content"])


@pytest.mark.slow
async def test_concurrent_clients_leave_what_a_sequential_order_of_their_writes_leaves(
    server_url: str,
) -> None:
    namespace = f"model-{uuid.uuid4().hex[:10]}"
    work = Workload()
    limits = httpx.Limits(max_connections=CLIENTS)
    async with httpx.AsyncClient(base_url=server_url, timeout=60, limits=limits) as client:
        until = time.monotonic() + SECONDS
        await asyncio.gather(
            *(run_client(client, namespace, work, seed, until) for seed in range(CLIENTS))
        )
        params = {"namespace": namespace}
        stored = (await client.post("/v1/memories/get", json={"keys": list(KEYS), **params})).json()
        problems = [deletion_explained(work.log, key) for key in stored["missing"]]
        for memory in stored["memories"]:
            problems += [explained(work.log, memory["key"], name, memory[name]) for name in FIELDS]
            found = await client.get(
                "/v1/search",
                params={**params, "query": embedded(memory), "mode": "vector", "limit": 1},
            )
            top = found.json()["results"][0]
            if (top["key"], round(top["score"], 3)) != (memory["key"], 1.0):
                problems.append(f"{memory['key']}'s vector is not its text: {top}")
        stats = (await client.get("/v1/stats", params=params)).json()
    links = sum(len(m["links"]) for m in stored["memories"])
    counts = (stats["memoryCount"], stats["linkCount"])
    assert counts == (len(stored["memories"]), links)
    assert [p for p in problems if p] == []
    kinds = {kind: sum(op.kind == kind for op in work.log) for kind in ("save", "patch", "delete")}
    print(f"acknowledged writes: {kinds}; stored {len(stored['memories'])} of {len(KEYS)} keys")
    assert min(kinds["save"], kinds["patch"]) > 0, kinds
