"""bench.peer_corpus: the perf corpus as Graphiti entities, episodes and facts."""

from __future__ import annotations

from bench.peer_corpus import Entity, Episode, Fact, chunked, peer_graph, peer_uuid
from bench.perf_corpus import Memory

ITEMS: list[Memory] = [
    {"key": "m-0", "title": "login service", "content": "It timed out.", "links": []},
    {"key": "m-1", "title": "about Ana", "content": "Ana likes pho.", "links": []},
    {
        "key": "m-2",
        "title": "Redis for the cache",
        "content": "We chose Redis.",
        "links": [{"key": "m-0", "weight": 0.5}, {"key": "m-1", "weight": 0.2}],
    },
]


def test_each_memory_is_an_entity_named_by_its_title_and_an_episode_of_its_content() -> None:
    graph = peer_graph(ITEMS[:1])
    entity = peer_uuid("entity", "m-0")
    assert graph.entities == (Entity(entity, "login service", "It timed out."),)
    assert graph.episodes == (
        Episode(peer_uuid("episode", "m-0"), "m-0", "It timed out.", entity, ()),
    )
    assert graph.facts == ()


def test_each_link_is_a_fact_from_its_memory_naming_both_titles() -> None:
    graph = peer_graph(ITEMS)
    episode = peer_uuid("episode", "m-2")
    assert graph.facts == (
        Fact(
            peer_uuid("fact", "m-2->m-0"),
            peer_uuid("entity", "m-2"),
            peer_uuid("entity", "m-0"),
            "Redis for the cache relates to login service",
            episode,
        ),
        Fact(
            peer_uuid("fact", "m-2->m-1"),
            peer_uuid("entity", "m-2"),
            peer_uuid("entity", "m-1"),
            "Redis for the cache relates to about Ana",
            episode,
        ),
    )
    assert graph.episodes[2].fact_uuids == (
        peer_uuid("fact", "m-2->m-0"),
        peer_uuid("fact", "m-2->m-1"),
    )


def test_chunks_name_link_targets_of_earlier_chunks_and_give_the_same_graph() -> None:
    parts = list(chunked(ITEMS, 2))
    assert [len(p.entities) for p in parts] == [2, 1]
    assert parts[1].facts == peer_graph(ITEMS).facts


def test_uuids_are_stable_and_differ_by_kind() -> None:
    assert peer_uuid("entity", "m-0") == peer_uuid("entity", "m-0")
    assert peer_uuid("entity", "m-0") != peer_uuid("episode", "m-0")
    assert len(peer_uuid("fact", "m-2->m-0")) == 36
