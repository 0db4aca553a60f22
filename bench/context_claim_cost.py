"""What a context claim costs beside another vector storage's backlog (several services with
embedded storage on one Neo4j). For each size, a fresh Neo4j holds that many waiting contexts
of another storage (nodes with the properties the claim reads, written in Cypher, in
namespaces of 100 linked in a chain: only the claim's read is measured, not how they came to
wait) and two of this storage's, older. A claim
of 8 by this storage is timed (p50 over `--repeat` claims, each taking the two again: leases of
1 ms) and profiled for its database hits.

Run: `python -m bench.context_claim_cost [--sizes 1000 45000] [--repeat 30]`; writes
bench/results/context_claim_cost.json.
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from collections.abc import Sequence
from typing import Any, cast

from bench.common import db_hits, local_neo4j, open_driver, summary, write_results
from service.config import Neo4jSettings
from service.core.upkeep.context_index import PENDING, claim_params
from service.stores.cypher_library import CypherLibrary
from service.stores.graph_store import GraphStore

WAITING = """
UNWIND range(1, $count) AS n
CREATE (:Memory {id: $storage + '-' + n, namespace: $storage + '-' + n / 100,
                 content: 'waiting ' + n,
                 context_state: 'pending', vector_store: $storage, vector_state: 'ok',
                 created_at: datetime() - duration({minutes: $minutes_ago}),
                 context_since: timestamp() - 60000 * $minutes_ago})
"""
THREADED = """
UNWIND range(2, $count) AS n
MATCH (a:Memory {id: $storage + '-' + n}), (b:Memory {id: $storage + '-' + (n - 1)})
CREATE (a)-[:LINK {type: 'next', weight: 0.5}]->(b)
"""
OWN, OTHER = "own-storage", "other-storage"


def claim_of_8() -> dict[str, Any]:
    """The parameters of a claim of 8 by this storage, leased for 1 ms (the next takes it again)."""
    params = claim_params(OWN, PENDING, uuid.uuid4().hex, 8, 0.001)
    return params | {"neighbours": 4, "hops": 2}


async def measure(neo4j: Neo4jSettings, others: int, repeat: int) -> dict[str, Any]:
    """A claim's p50 and database hits beside `others` waiting contexts of another storage."""
    graph = GraphStore(neo4j, neo4j.uri, CypherLibrary())
    await graph.migrate()
    await graph.close()
    statement = CypherLibrary().text("context_claim")
    async with open_driver(neo4j) as driver:
        await driver.execute_query(WAITING, count=others, storage=OTHER, minutes_ago=2)
        await driver.execute_query(WAITING, count=2, storage=OWN, minutes_ago=60)
        for storage, count in ((OTHER, others), (OWN, 2)):
            await driver.execute_query(THREADED, count=count, storage=storage)
        samples: list[float] = []
        for round_ in range(repeat + 10):  # the first 10 warm the plan cache up
            started = time.perf_counter()
            records, _, _ = await driver.execute_query(statement, claim_of_8())
            if round_ >= 10:
                samples.append((time.perf_counter() - started) * 1000)
            assert len(records) == 2, f"the claim took {len(records)} memories, not its own 2"
        profiled = await driver.execute_query("PROFILE " + statement, claim_of_8())
    outcome: Any = profiled.summary  # the driver's summary is partially typed
    plan = cast(dict[str, Any], outcome.profile)
    return {"other_storage_waiting": others, "claim_ms": summary(samples), "db_hits": db_hits(plan)}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="A context claim beside another storage's backlog."
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 45000])
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args(argv)
    rows: list[dict[str, Any]] = []
    for size in args.sizes:
        with local_neo4j() as (neo4j, _):
            rows.append(asyncio.run(measure(neo4j, size, args.repeat)))
        print(rows[-1])
    write_results("context_claim_cost", {"claims": rows})


if __name__ == "__main__":
    main()
