"""A process that saves, then dies by SIGKILL between the Neo4j and the Qdrant write.

Run by test_crash_recovery: `python -m tests.integration.crash_worker URI EDGE_DIR NS MODE`.
MODE `save` crashes inside a save; `delete` crashes inside a delete.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from service.config import Neo4jSettings, load_settings
from service.core.memories import MemoryService
from service.core.models import SaveInput
from service.core.stores import Stores
from service.stores.cypher_library import CypherLibrary
from service.stores.embeddings import LocalMiniLM
from service.stores.graph_store import GraphStore
from service.stores.vector_store import EdgeVectorStore


def die(*_: Any) -> None:
    os.kill(os.getpid(), signal.SIGKILL)


async def main(uri: str, edge_dir: str, namespace: str, mode: str) -> None:
    settings = load_settings(neo4j=Neo4jSettings(uri=uri))
    graph = GraphStore(settings.neo4j, uri, CypherLibrary())
    embedder = LocalMiniLM()
    vectors = EdgeVectorStore(Path(edge_dir), embedder.dimensions)
    await vectors.open()
    service = MemoryService(settings, Stores(graph, vectors, embedder))
    kept = await service.save(namespace, SaveInput(key="acknowledged", content="kept safe"))
    await service.saver.marks.flush()  # its vector's mark cleared: reconcile has one to finish
    print(json.dumps({"acknowledged": kept["memory"]["id"]}), flush=True)
    if mode == "save":
        vectors.upsert = die  # type: ignore[method-assign]
        await service.save(namespace, SaveInput(key="in-flight", content="written to neo4j"))
    else:
        vectors.delete = die  # type: ignore[method-assign]
        await service.delete(namespace, keys=["acknowledged"])


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
