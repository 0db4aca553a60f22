"""Neo4j values become plain Python (`neo4j_values.plain`): lists and maps keep their shape,
temporal values become aware UTC datetimes, scalars pass as they are."""

from __future__ import annotations

from datetime import UTC, datetime

from neo4j import time as neo4j_time

from service.stores.neo4j_values import plain


def test_rows_of_mixed_values_keep_their_shape_and_convert_only_temporal_values() -> None:
    moment = neo4j_time.DateTime(2026, 11, 27, 6, 30, 0, 0, tzinfo=UTC)
    value = {
        "rows": [["id-1", "key", ["tag", "other"], 0.5, 7, None, False, moment]],
        "ids": ["a", "b"],
        "empty": [],
    }
    assert plain(value) == {
        "rows": [
            [
                "id-1",
                "key",
                ["tag", "other"],
                0.5,
                7,
                None,
                False,
                datetime(2026, 11, 27, 6, 30, tzinfo=UTC),
            ]
        ],
        "ids": ["a", "b"],
        "empty": [],
    }
    converted = plain(value)["rows"][0][-1]
    assert type(converted) is datetime
    assert converted.tzinfo is UTC


def test_a_list_of_scalars_is_returned_as_it_is() -> None:
    ids = ["a", "b", 3, 0.5, None, True]
    assert plain(ids) is ids
