"""Fixtures of the integration tests beyond the session's (tests/conftest.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio

from service.config import Settings
from service.core.memories import MemoryService
from service.core.stores import Stores
from service.stores.cypher_library import CypherLibrary
from service.stores.graph_store import GraphStore


@pytest_asyncio.fixture
async def elsewhere(settings: Settings, memories: MemoryService) -> AsyncIterator[MemoryService]:
    """The memory service of another process: its own Neo4j driver and link graphs."""
    store = GraphStore(settings.neo4j, settings.neo4j.uri, CypherLibrary())
    stores = memories.stores
    service = MemoryService(
        settings, Stores(store, stores.vectors, stores.embedder, stores.context_vectors)
    )
    yield service
    await service.close()
    await store.close()
