"""Link sorting of docs/contract.md §3: the one pure function every response with memories uses.

Also parses the `sortLinks` parameter, whose accepted values are fixed by seed 000.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Annotated, Any, cast

from pydantic import Field

from service.core.scalars import seeded
from service.errors import InvalidParameter
from service.filters import MISSING_SCORE

SORT_LINKS_DESCRIPTION = (
    "Sort each memory's links by link weight × memory score (desc), then weight, then key. "
    'true (default) or false; "true"/"false" strings are accepted.'
)


def combined_score(weight: float, score: float | None) -> float:
    """`weight × (score ?? 50)` at full precision."""
    return weight * (MISSING_SCORE if score is None else score)


def _link_sort_key(link: dict[str, Any]) -> tuple[float, float, str, str]:
    weight, score = link["weight"], link["score"]
    combined = -weight * (MISSING_SCORE if score is None else score)
    return (combined, -weight, link["key"], link["type"])


def sort_links(links: Sequence[dict[str, Any]], sort: bool) -> list[dict[str, Any]]:
    """Links by combined score desc, weight desc, key asc; or untouched (creation order).

    Link type is the last tie-break: a memory has one link per (target, type), so the order is
    total.
    """
    return sorted(links, key=_link_sort_key) if sort else list(links)


def filter_links(
    links: Iterable[dict[str, Any]],
    link_types: Sequence[str] | None = None,
    min_weight: float | None = None,
) -> list[dict[str, Any]]:
    """Keep links of the given types and with at least `min_weight` (applied before sorting)."""
    return [
        link
        for link in links
        if (not link_types or link["type"] in link_types)
        and (min_weight is None or link["weight"] >= min_weight)
    ]


def parse_sort_links(value: object) -> bool:
    """Accept booleans, "true"/"false" (trimmed, any case); absent, null or "" mean true."""
    if value is None or isinstance(value, bool):
        return True if value is None else value
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("", "true"):
            return True
        if text == "false":
            return False
    raise InvalidParameter(f"Invalid sortLinks value: '{_shown(value)}'. Must be true or false")


def _shown(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "[]" if not value else str(cast(list[object], value))
    return str(value)


# The one reading of `sortLinks` for every tool and route: `parse_sort_links`, its exact message.
SortLinks = Annotated[bool, seeded(parse_sort_links)]
SortLinksParam = Annotated[
    SortLinks, Field(description=SORT_LINKS_DESCRIPTION, examples=[True, False])
]
