"""Seeds 000 (mcp-link-sorting) and 001 (link-score-sorting), scenario by scenario, over HTTP
and over MCP, against the running service."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import Api, HttpApi, McpApi

# Targets in creation order: (key, score, weight of the hub's link to it).
TARGETS: list[tuple[str, float | None, float]] = [
    ("t-low", 40.0, 0.5),  # 20.0
    ("t-top", 90.0, 0.9),  # 81.0
    ("t-none", None, 0.6),  # 30.0 (missing score counts as 50)
    ("t-mid", 80.0, 0.75),  # 60.0
]
SORTED = ["t-top", "t-mid", "t-none", "t-low"]
CREATED = ["t-low", "t-top", "t-none", "t-mid"]


async def build_hub(
    api: Api, namespace: str, targets: list[tuple[str, float | None, float]]
) -> None:
    for key, score, _ in targets:
        await api.call(
            "memory_save", namespace=namespace, key=key, content=f"memory {key}", score=score
        )
    links = [{"key": key, "weight": weight} for key, _, weight in targets]
    saved = await api.call(
        "memory_save", namespace=namespace, key="hub", content="the hub", links=links
    )
    assert saved["success"] is True


async def hub_links(api: Api, namespace: str, **arguments: Any) -> dict[str, Any]:
    return await api.call("memory_get", namespace=namespace, keys=["hub"], **arguments)


def link_keys(result: dict[str, Any]) -> list[str]:
    return [link["key"] for link in result["memories"][0]["links"]]


# -- seed 000: memory_get with sortLinks ------------------------------------------------------


async def test_memory_get_with_sort_links_true_orders_links_by_combined_score(
    api: Api, namespace: str
) -> None:
    await build_hub(api, namespace, TARGETS)
    result = await hub_links(api, namespace, sortLinks=True)
    assert link_keys(result) == SORTED
    assert [x["combined_score"] for x in result["memories"][0]["links"]] == [81.0, 60.0, 30.0, 20.0]


async def test_memory_get_with_sort_links_false_keeps_the_original_order(
    api: Api, namespace: str
) -> None:
    await build_hub(api, namespace, TARGETS)
    assert link_keys(await hub_links(api, namespace, sortLinks=False)) == CREATED


async def test_memory_get_without_sort_links_sorts_by_default(api: Api, namespace: str) -> None:
    await build_hub(api, namespace, TARGETS)
    assert link_keys(await hub_links(api, namespace)) == SORTED


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, SORTED),
        (False, CREATED),
        ("true", SORTED),
        ("false", CREATED),
        ("TRUE", SORTED),
        (" False ", CREATED),
        (None, SORTED),
        ("", SORTED),
    ],
)
async def test_sort_links_accepts_booleans_and_boolean_strings(
    api: Api, namespace: str, value: object, expected: list[str]
) -> None:
    await build_hub(api, namespace, TARGETS)
    assert link_keys(await hub_links(api, namespace, sortLinks=value)) == expected


@pytest.mark.parametrize(("value", "shown"), [("yes", "yes"), (1, "1"), ("1", "1"), ([], "[]")])
async def test_invalid_sort_links_value_is_an_invalid_parameter_with_guidance(
    api: Api, namespace: str, value: object, shown: str
) -> None:
    await build_hub(api, namespace, TARGETS)
    message = f"Invalid sortLinks value: '{shown}'. Must be true or false"
    assert await hub_links(api, namespace, sortLinks=value) == {
        "success": False,
        "error_type": "invalid_parameter",
        "message": message,
        "error": message,
        "memories": [],
        "missing": [],
    }


async def test_mcp_and_http_return_identical_sorted_links(
    http_api: HttpApi, mcp_api: McpApi, namespace: str
) -> None:
    await build_hub(http_api, namespace, TARGETS)
    over_http = await hub_links(http_api, namespace)
    over_mcp = await hub_links(mcp_api, namespace)
    assert over_mcp["memories"][0]["links"] == over_http["memories"][0]["links"]


async def test_http_get_by_key_takes_sort_links_from_the_query_string(
    http_api: HttpApi, namespace: str
) -> None:
    await build_hub(http_api, namespace, TARGETS)
    base = {"namespace": namespace}
    unsorted = await http_api.client.get("/v1/memories/hub", params={**base, "sortLinks": "false"})
    assert [x["key"] for x in unsorted.json()["memory"]["links"]] == CREATED
    invalid = await http_api.client.get("/v1/memories/hub", params={**base, "sortLinks": "yes"})
    assert invalid.status_code == 400
    assert invalid.json()["message"] == "Invalid sortLinks value: 'yes'. Must be true or false"


# -- seed 000/001: tie-breaking and missing scores --------------------------------------------


async def test_equal_combined_scores_sort_by_weight_descending(api: Api, namespace: str) -> None:
    await build_hub(api, namespace, [("a", 80.0, 0.5), ("b", 50.0, 0.8), ("c", 100.0, 0.4)])
    assert link_keys(await hub_links(api, namespace)) == ["b", "a", "c"]


async def test_equal_combined_scores_and_weights_sort_by_key_alphabetically(
    api: Api, namespace: str
) -> None:
    await build_hub(api, namespace, [("kiwi", 60.0, 0.5), ("apple", 60.0, 0.5), ("fig", 60.0, 0.5)])
    assert link_keys(await hub_links(api, namespace)) == ["apple", "fig", "kiwi"]


async def test_memory_without_score_uses_fifty_in_the_combined_score(
    api: Api, namespace: str
) -> None:
    await build_hub(api, namespace, [("scored", 49.0, 1.0), ("unscored", None, 1.0)])
    links = (await hub_links(api, namespace))["memories"][0]["links"]
    assert [(x["key"], x["score"], x["combined_score"]) for x in links] == [
        ("unscored", None, 50.0),
        ("scored", 49.0, 49.0),
    ]


# -- seed 001: combined score calculation -----------------------------------------------------


async def test_weight_point_seven_five_and_score_eighty_combine_to_sixty(
    api: Api, namespace: str
) -> None:
    await build_hub(api, namespace, [("t", 80.0, 0.75)])
    assert (await hub_links(api, namespace))["memories"][0]["links"][0]["combined_score"] == 60.0


async def test_edge_values_weight_zero_score_zero_and_maximum_hundred(
    api: Api, namespace: str
) -> None:
    await build_hub(api, namespace, [("w0", 100.0, 0.0), ("s0", 0.0, 1.0), ("max", 100.0, 1.0)])
    links = (await hub_links(api, namespace))["memories"][0]["links"]
    assert [(x["key"], x["combined_score"]) for x in links] == [
        ("max", 100.0),
        ("s0", 0.0),
        ("w0", 0.0),
    ]


async def test_existing_clients_get_sorted_links_without_any_parameter(
    http_api: HttpApi, namespace: str
) -> None:
    await build_hub(http_api, namespace, TARGETS)
    response = await http_api.client.get("/v1/memories/hub", params={"namespace": namespace})
    assert [x["key"] for x in response.json()["memory"]["links"]] == SORTED


async def test_links_updated_later_keep_their_creation_position_when_unsorted(
    api: Api, namespace: str
) -> None:
    await build_hub(api, namespace, TARGETS)
    await api.call("memory_link", namespace=namespace, **{"from": "hub", "to": "t-low"}, weight=1.0)
    assert link_keys(await hub_links(api, namespace, sortLinks=False)) == CREATED
    assert link_keys(await hub_links(api, namespace)) == ["t-top", "t-mid", "t-low", "t-none"]
