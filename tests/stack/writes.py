"""Saves whose answers are kept: which were acknowledged (id and content) and which were not, so
that a test can check that every acknowledged one is still there after a restart or a crash."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx


@dataclass
class Writes:
    """Saves into one namespace over HTTP, one at a time, each with its own key and text."""

    client: httpx.AsyncClient
    namespace: str
    acknowledged: dict[str, tuple[str, str]] = field(default_factory=dict[str, tuple[str, str]])
    unanswered: list[str] = field(default_factory=list[str])

    async def save(self, key: str) -> httpx.Response | None:
        """One save; acknowledged (kept with its id) only on a success answer."""
        content = f"{key} {uuid.uuid4().hex} {uuid.uuid4().hex}"
        body = {"key": key, "content": content}
        try:
            response = await self.client.post(
                "/v1/memories", params={"namespace": self.namespace}, json=body
            )
        except httpx.HTTPError:
            self.unanswered.append(key)
            return None
        if response.status_code == 201 and response.json()["success"] is True:
            self.acknowledged[key] = (response.json()["memory"]["id"], content)
        else:
            self.unanswered.append(key)
        return response

    async def save_all(self, prefix: str, count: int) -> None:
        """`count` saves that must all be acknowledged."""
        for number in range(count):
            response = await self.save(f"{prefix}-{number}")
            assert response is not None and response.status_code == 201, (
                response.text if response else "no answer"
            )

    async def keep_saving(self, prefix: str, stop: asyncio.Event) -> None:
        """Save until `stop` is set, whatever the answers (a refused one waits a little)."""
        number = 0
        while not stop.is_set():
            response = await self.save(f"{prefix}-{number}")
            number += 1
            await asyncio.sleep(0.1 if response is not None and response.is_success else 0.5)

    async def present(self, keys: list[str]) -> dict[str, dict[str, Any]]:
        """The stored memories of `keys`, by key."""
        response = await self.client.post(
            "/v1/memories/get", json={"keys": keys, "namespace": self.namespace}
        )
        assert response.status_code == 200, response.text
        return {memory["key"]: memory for memory in response.json()["memories"]}

    async def first_vector_hit(self, content: str) -> str:
        """The id of the best vector match of `content` (the memory saved with it, if kept)."""
        params = {"namespace": self.namespace, "query": content, "mode": "vector", "limit": 1}
        response = await self.client.get("/v1/search", params=params)
        assert response.status_code == 200, response.text
        return str(response.json()["results"][0]["id"])
