"""How many Lucene hits a fulltext channel fetches first: a quarter more than it keeps when only
superseded memories may drop out, four times as many (at least 200) under a narrowing filter."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from service.core.read.channels import lucene_fetch
from service.filters import MemoryFilters


@pytest.mark.parametrize(("wanted", "fetched"), [(50, 66), (10, 26), (100, 125), (1, 17)])
def test_without_a_narrowing_filter_a_quarter_more_at_least_sixteen(
    wanted: int, fetched: int
) -> None:
    assert lucene_fetch(wanted, MemoryFilters()) == fetched
    assert lucene_fetch(wanted, MemoryFilters(include_superseded=True)) == fetched


@pytest.mark.parametrize(
    "narrowing",
    [
        MemoryFilters(types=("note",)),
        MemoryFilters(tags=("red",)),
        MemoryFilters(created_from=datetime(2026, 1, 1, tzinfo=UTC)),
        MemoryFilters(created_to=datetime(2026, 1, 1, tzinfo=UTC)),
        MemoryFilters(min_score=0.0),
    ],
)
def test_a_narrowing_filter_fetches_four_times_at_least_two_hundred(
    narrowing: MemoryFilters,
) -> None:
    assert narrowing.narrows
    assert [lucene_fetch(wanted, narrowing) for wanted in (10, 50, 100)] == [200, 200, 400]
