"""The perf corpus in Graphiti's terms, as plain records (no graphiti import, so the mapping is
tested without the bench group): per memory one entity and one episode, per link one fact."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bench.perf_corpus import Memory

GROUP_ID = "mnemograph_bench"
RELATION = "LINKS_TO"
SOURCE = "mnemograph bench memory"
# The recipes of graphiti_core.search.search_config_recipes measured, by their names in lower
# case: its default for `Graphiti.search` (edges), nodes alone, and all scopes together.
RECIPE_NAMES = ("edge_hybrid_search_rrf", "node_hybrid_search_rrf", "combined_hybrid_search_rrf")
_UUIDS = uuid.UUID("5a1d7c3e-0b8f-4f3a-9c61-2d4e8b7a9f10")


@dataclass(frozen=True)
class Entity:
    """An EntityNode: name = the memory's title, summary = its content."""

    uuid: str
    name: str
    summary: str


@dataclass(frozen=True)
class Episode:
    """An EpisodicNode holding the memory's content, which MENTIONS its entity."""

    uuid: str
    name: str
    content: str
    entity_uuid: str
    fact_uuids: tuple[str, ...]


@dataclass(frozen=True)
class Fact:
    """An EntityEdge for one LINK: "<source title> relates to <target title>"."""

    uuid: str
    source_uuid: str
    target_uuid: str
    fact: str
    episode_uuid: str


@dataclass(frozen=True)
class PeerGraph:
    entities: tuple[Entity, ...]
    episodes: tuple[Episode, ...]
    facts: tuple[Fact, ...]


def peer_uuid(kind: str, key: str) -> str:
    """A stable uuid per (kind, memory key or link): the same corpus gives the same graph."""
    return str(uuid.uuid5(_UUIDS, f"{kind}/{key}"))


def peer_graph(items: Iterable[Memory], titles: dict[str, str] | None = None) -> PeerGraph:
    """`items` (perf corpus memories, links to earlier ones) as Graphiti entities, episodes and
    facts. `titles` gives the titles of link targets outside `items` (when mapped in chunks)."""
    known = dict(titles or {})
    entities: list[Entity] = []
    episodes: list[Episode] = []
    facts: list[Fact] = []
    for memory in items:
        key, title = str(memory["key"]), str(memory["title"])
        known[key] = title
        entity = Entity(peer_uuid("entity", key), title, str(memory["content"]))
        episode_uuid = peer_uuid("episode", key)
        links = [str(link["key"]) for link in memory.get("links", [])]
        own = [
            Fact(
                peer_uuid("fact", f"{key}->{target}"),
                entity.uuid,
                peer_uuid("entity", target),
                f"{title} relates to {known[target]}",
                episode_uuid,
            )
            for target in links
        ]
        entities.append(entity)
        episodes.append(
            Episode(episode_uuid, key, entity.summary, entity.uuid, tuple(f.uuid for f in own))
        )
        facts.extend(own)
    return PeerGraph(tuple(entities), tuple(episodes), tuple(facts))


def chunked(items: Sequence[Memory], size: int) -> Iterable[PeerGraph]:
    """The graph of `items` in chunks of `size` memories, in order: a chunk's facts point only
    at entities of that chunk or of earlier ones (the corpus links only to earlier memories)."""
    titles: dict[str, str] = {}
    for start in range(0, len(items), size):
        part = items[start : start + size]
        yield peer_graph(part, titles)
        titles.update((str(m["key"]), str(m["title"])) for m in part)
