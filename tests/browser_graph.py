"""A small team memory graph for the Neo4j Browser queries and their screenshot: memories of
several types saved through the real service, weighted links, one superseded chain, one orphan."""

from __future__ import annotations

from typing import Any

from bench.common import open_driver
from service.config import Neo4jSettings
from service.core.memories import MemoryService
from service.core.models import SaveInput

# key, type, title, score, links (target key, weight); saved in this order.
MEMORIES: list[tuple[str, str, str, float | None, list[tuple[str, float]]]] = [
    ("obs-latency", "observation", "Hybrid p50 89 ms at 10k", 40, []),
    ("adr-vectors", "decision", "Qdrant holds the vectors", 80, []),
    (
        "design-retrieval",
        "design",
        "Retrieval fuses four channels",
        70,
        [("adr-vectors", 0.8), ("obs-latency", 0.6)],
    ),
    (
        "adr-graph",
        "decision",
        "Neo4j stores memories and links",
        90,
        [("adr-vectors", 0.9), ("design-retrieval", 0.7)],
    ),
    ("bug-link-order", "bugfix", "Links sorted by weight × score", None, [("adr-graph", 0.5)]),
    ("feat-timeline", "feature", "Timeline around a memory", 60, [("adr-graph", 0.3)]),
    ("note-standup", "note", "Standup notes", None, []),
    ("adr-vectors-v0", "decision", "Vectors in a JSON file", 20, []),
    ("adr-vectors-v1", "decision", "Vectors in Neo4j", 50, []),
]
# new key -> old key: the new memory supersedes the old one.
SUPERSEDES = [("adr-vectors-v1", "adr-vectors-v0"), ("adr-vectors", "adr-vectors-v1")]
SUPERSEDE = """
MATCH (new:Memory {namespace: $namespace, key: $new})
MATCH (old:Memory {namespace: $namespace, key: $old})
SET old.superseded_by = new.id, old.superseded_at = datetime()
MERGE (new)-[:SUPERSEDES]->(old)
"""


async def save_graph(memories: MemoryService, neo4j: Neo4jSettings, namespace: str) -> None:
    """Save every memory with its links, then record the supersessions as memory_save does."""
    for key, kind, title, score, links in MEMORIES:
        fields: dict[str, Any] = {
            "key": key,
            "type": kind,
            "title": title,
            "content": f"{title}.",
            "score": score,
            "links": [{"key": target, "weight": weight} for target, weight in links],
        }
        await memories.save(namespace, SaveInput.model_validate(fields))
    async with open_driver(neo4j) as driver:
        for new, old in SUPERSEDES:
            await driver.execute_query(SUPERSEDE, namespace=namespace, new=new, old=old)
