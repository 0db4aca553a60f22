"""The Neo4j the project starts itself sends its clients no receive-timeout hint (it keeps no
connection alive for requests), so the driver reads the socket without a timer per read."""

from __future__ import annotations

import os
from typing import Any

import pytest

from service.stores.graph_store import GraphStore


async def test_the_local_neo4j_hints_no_receive_timeout(graph: GraphStore) -> None:
    if os.environ.get("MNEMO_TEST_NEO4J_URI"):
        pytest.skip("an external Neo4j keeps its own settings")
    await graph.read("graph_version", namespace="bolt-hints")
    driver: Any = graph._driver  # pyright: ignore[reportPrivateUsage]
    connections = [c for pooled in driver._pool.connections.values() for c in pooled]

    assert connections
    assert [c.connection_hints for c in connections] == [{"ssr.enabled": True}] * len(connections)
    assert [c.socket.get_read_timeout() for c in connections] == [None] * len(connections)
