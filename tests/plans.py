"""A library statement run under PROFILE on the real Neo4j: its records and the database hits
its plan made (how much of the store it read)."""

from __future__ import annotations

from typing import Any, cast

from bench.common import db_hits, open_driver
from service.config import Neo4jSettings
from service.stores.cypher_library import CypherLibrary


async def profiled(
    neo4j: Neo4jSettings, statement: str, params: dict[str, Any]
) -> tuple[list[dict[str, Any]], int]:
    """The library statement `statement` run with `params`: its records and database hits."""
    async with open_driver(neo4j) as driver:
        result = await driver.execute_query("PROFILE " + CypherLibrary().text(statement), params)
    summary: Any = result.summary  # the driver's summary is partially typed
    plan = cast(dict[str, Any], summary.profile)
    return [record.data() for record in result.records], db_hits(plan)
