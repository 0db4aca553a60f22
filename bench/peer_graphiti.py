"""Graphiti, the peer of `make bench`: the perf corpus written into Graphiti's own schema on the
same Neo4j with its bulk writer (no LLM), and its search recipes timed in-process.

What is measured, per recipe: one query embedding by the same local all-MiniLM-L6-v2 behind
Graphiti's EmbedderClient interface, then `graphiti_core.search.search.search` with that vector
(its fulltext and cosine statements over the group and its RRF), in this process, on one Neo4j
driver with the Rust extension. Nothing is sent to an LLM or a cross-encoder: their clients here
refuse to be called. Usage: python -m bench.peer_graphiti [--size 2000] [--repeat 200].
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import time
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from importlib import metadata
from typing import Any

from graphiti_core.cross_encoder.client import CrossEncoderClient
from graphiti_core.driver.neo4j_driver import Neo4jDriver
from graphiti_core.edges import EntityEdge, EpisodicEdge, create_entity_edge_embeddings
from graphiti_core.embedder.client import EmbedderClient
from graphiti_core.graphiti_types import GraphitiClients
from graphiti_core.llm_client.client import LLMClient
from graphiti_core.llm_client.config import DEFAULT_MAX_TOKENS, ModelSize
from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode, create_entity_node_embeddings
from graphiti_core.prompts.models import Message
from graphiti_core.search import search_config_recipes as recipes
from graphiti_core.search.search import search
from graphiti_core.search.search_config import SearchConfig
from graphiti_core.search.search_filters import SearchFilters
from graphiti_core.tracer import NoOpTracer
from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk
from pydantic import BaseModel

from bench.common import RESULTS, local_neo4j
from bench.peer_corpus import GROUP_ID, RECIPE_NAMES, RELATION, SOURCE, PeerGraph, chunked
from bench.perf_corpus import Memory, corpus, hybrid_queries
from bench.perf_http import WARM, Stats, stats
from service.stores.embeddings import LocalMiniLM

CHUNK = 500
# The recipes of RECIPE_NAMES: none needs a cross-encoder or an LLM.
RECIPES: dict[str, SearchConfig] = {name: getattr(recipes, name.upper()) for name in RECIPE_NAMES}
_WHEN = datetime(2026, 1, 1, tzinfo=UTC)


class MiniLMEmbedder(EmbedderClient):
    """Graphiti's embedder interface over the service's local all-MiniLM-L6-v2."""

    def __init__(self, embedder: LocalMiniLM) -> None:
        self._embedder = embedder

    async def create(
        self, input_data: str | list[str] | Iterable[int] | Iterable[Iterable[int]]
    ) -> list[float]:
        texts = [input_data] if isinstance(input_data, str) else list(_texts(input_data))
        if not texts:
            raise TypeError("only text can be embedded here, not token ids")
        return [float(x) for x in (await self._embedder.embed(texts[:1]))[0]]

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        vectors = await self._embedder.embed(input_data_list)
        return [[float(x) for x in vector] for vector in vectors]


def _texts(values: list[str] | Iterable[int] | Iterable[Iterable[int]]) -> Iterable[str]:
    return (value for value in values if isinstance(value, str))


class NoLLM(LLMClient):
    """The LLM client Graphiti's types require; the bench never calls it."""

    def __init__(self) -> None:
        super().__init__(None)

    async def _generate_response(
        self,
        messages: list[Message],
        response_model: type[BaseModel] | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        model_size: ModelSize = ModelSize.medium,
        *,
        model: str | None = None,
    ) -> dict[str, Any]:
        raise RuntimeError("the peer benchmark calls no LLM")


class NoCrossEncoder(CrossEncoderClient):
    """The cross-encoder Graphiti's types require; no recipe measured here uses one."""

    async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
        raise RuntimeError("the peer benchmark uses no cross-encoder")


def graphiti_objects(
    graph: PeerGraph,
) -> tuple[list[EpisodicNode], list[EpisodicEdge], list[EntityNode], list[EntityEdge]]:
    """The records as Graphiti's own node and edge models, in the group of the bench."""
    episodes = [
        EpisodicNode(
            uuid=e.uuid,
            name=e.name,
            group_id=GROUP_ID,
            source=EpisodeType.text,
            source_description=SOURCE,
            content=e.content,
            created_at=_WHEN,
            valid_at=_WHEN,
            entity_edges=list(e.fact_uuids),
        )
        for e in graph.episodes
    ]
    mentions = [
        EpisodicEdge(
            group_id=GROUP_ID,
            source_node_uuid=e.uuid,
            target_node_uuid=e.entity_uuid,
            created_at=_WHEN,
        )
        for e in graph.episodes
    ]
    entities = [
        EntityNode(uuid=n.uuid, name=n.name, summary=n.summary, group_id=GROUP_ID, created_at=_WHEN)
        for n in graph.entities
    ]
    edges = [
        EntityEdge(
            uuid=f.uuid,
            group_id=GROUP_ID,
            source_node_uuid=f.source_uuid,
            target_node_uuid=f.target_uuid,
            name=RELATION,
            fact=f.fact,
            episodes=[f.episode_uuid],
            created_at=_WHEN,
            valid_at=_WHEN,
            reference_time=_WHEN,
        )
        for f in graph.facts
    ]
    return episodes, mentions, entities, edges


async def load(
    driver: Neo4jDriver, embedder: MiniLMEmbedder, items: Sequence[Memory]
) -> dict[str, float]:
    """Graphiti's indexes, then the corpus in chunks: names and facts embedded in batches through
    Graphiti's own helpers, written by its bulk writer (`add_nodes_and_edges_bulk`)."""
    await driver.build_indices_and_constraints()
    counts: dict[str, float] = {"entities": 0, "episodes": 0, "facts": 0, "embed_s": 0.0}
    started = time.perf_counter()
    for graph in chunked(items, CHUNK):
        episodes, mentions, entities, edges = graphiti_objects(graph)
        before = time.perf_counter()
        await create_entity_node_embeddings(embedder, entities)
        await create_entity_edge_embeddings(embedder, edges)
        counts["embed_s"] += time.perf_counter() - before
        await add_nodes_and_edges_bulk(driver, episodes, mentions, entities, edges, embedder)
        counts["entities"] += len(entities)
        counts["episodes"] += len(episodes)
        counts["facts"] += len(edges)
        print(f"\rgraphiti: loaded {counts['entities']}/{len(items)}", end="", file=sys.stderr)
    print(file=sys.stderr)
    await driver.execute_query("CALL db.awaitIndexes(600)")
    load_s = time.perf_counter() - started
    return {**counts, "embed_s": round(counts["embed_s"], 1), "load_s": round(load_s, 1)}


async def _timed_search(
    clients: GraphitiClients, config: SearchConfig, query: str
) -> tuple[float, float, int]:
    """(embedding ms, search ms, results) of one query: Graphiti's own steps, in its order."""
    started = time.perf_counter()
    vector = await clients.embedder.create(input_data=[query.replace("\n", " ")])
    embedded = time.perf_counter()
    found = await search(clients, query, [GROUP_ID], config, SearchFilters(), query_vector=vector)
    done = time.perf_counter()
    results = len(found.edges) + len(found.nodes) + len(found.episodes) + len(found.communities)
    return (embedded - started) * 1000, (done - embedded) * 1000, results


async def measure_recipe(
    clients: GraphitiClients, config: SearchConfig, warm: Sequence[str], timed: Sequence[str]
) -> dict[str, Any]:
    """`warm` queries, then `timed` ones back to back (the first WARM of them warm up too)."""
    for query in [*warm, *timed[:WARM]]:
        await _timed_search(clients, config, query)
    embedding: list[float] = []
    searching: list[float] = []
    total: list[float] = []
    results = 0
    started = time.perf_counter()
    for query in timed[WARM:]:
        embed_ms, search_ms, count = await _timed_search(clients, config, query)
        embedding.append(embed_ms)
        searching.append(search_ms)
        total.append(embed_ms + search_ms)
        results += count
    whole: Stats = stats(total, time.perf_counter() - started)
    alone = stats(searching, 1.0)
    return {
        **whole,
        "search_p50_ms": alone["p50_ms"],
        "search_p95_ms": alone["p95_ms"],
        "embedding_p50_ms": stats(embedding, 1.0)["p50_ms"],
        "results_mean": round(results / len(total), 1),
    }


def _not_already_there(record: logging.LogRecord) -> bool:
    return "EquivalentSchemaRuleAlreadyExists" not in record.getMessage()


async def measure_peer(
    neo4j_uri: str, items: Sequence[Memory], warm: Sequence[str], timed: Sequence[str]
) -> dict[str, Any]:
    """Load `items` into Graphiti's schema on that Neo4j, then time each recipe on the queries."""
    # Graphiti's statements name properties its data may lack (`invalid_at`, ...): the driver
    # would log Neo4j's notice about them on every query. Its driver builds its indexes when
    # made, and again when asked: it ignores the second's "already exists" but logs it first.
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    logging.getLogger("graphiti_core.driver.neo4j_driver").addFilter(_not_already_there)
    driver = Neo4jDriver(neo4j_uri, None, None)
    embedder = LocalMiniLM()
    client = MiniLMEmbedder(embedder)
    clients = GraphitiClients(
        driver=driver,
        llm_client=NoLLM(),
        embedder=client,
        cross_encoder=NoCrossEncoder(),
        tracer=NoOpTracer(),
    )
    peer: dict[str, Any] = {"version": metadata.version("graphiti-core")}
    try:
        peer["ingest"] = await load(driver, client, items)
        for name, config in RECIPES.items():
            peer[name] = await measure_recipe(clients, config, warm, timed)
            print(f"graphiti {name}: {peer[name]}", file=sys.stderr)
    finally:
        await driver.close()
        await embedder.close()
    return peer


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.peer_graphiti", description=__doc__)
    parser.add_argument("--size", type=int, default=2_000, help="memories in the corpus")
    parser.add_argument("--repeat", type=int, default=200, help="timed queries per recipe")
    parser.add_argument("--warm-up", type=int, default=300, help="warm-up queries per recipe")
    args = parser.parse_args(argv)
    warm, timed = hybrid_queries(args.warm_up, args.repeat + WARM, set())
    with local_neo4j() as (neo4j, _):
        peer = asyncio.run(measure_peer(neo4j.uri, list(corpus(args.size)), warm, timed))
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"peer_graphiti_{args.size}.json"
    path.write_text(json.dumps({"size": args.size, "graphiti": peer}, indent=2) + "\n")
    print(json.dumps(peer, indent=2))


if __name__ == "__main__":
    main()
