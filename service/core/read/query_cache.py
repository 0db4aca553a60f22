"""A small LRU cache of query embeddings: the vector channels of one call share one embedding,
and an agent repeating a query pays for it once."""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from service.stores.embeddings import Embedder, Vector


class QueryVectorCache:
    """Query text → embedding, the `size` most recent; concurrent misses of one text embed once."""

    def __init__(self, embedder: Embedder, size: int) -> None:
        self._embedder = embedder
        self._size = size
        self._vectors: OrderedDict[str, Vector] = OrderedDict()
        self._pending: dict[str, asyncio.Future[Vector]] = {}

    async def get(self, text: str) -> Vector:
        cached = self._vectors.get(text)
        if cached is not None:
            self._vectors.move_to_end(text)
            return cached
        pending = self._pending.get(text)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[Vector] = asyncio.get_running_loop().create_future()
        self._pending[text] = future
        try:
            vector = (await self._embedder.embed([text]))[0]
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved: waiters re-raise it, nobody else must
            raise
        finally:
            self._pending.pop(text, None)
        future.set_result(vector)
        self._vectors[text] = vector
        if len(self._vectors) > self._size:
            self._vectors.popitem(last=False)
        return vector
