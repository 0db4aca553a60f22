"""The HTTP adapter in-process: envelopes and statuses, auth, switches and OpenAPI text."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from service.api.tools import TOOLS
from service.core.search_inputs import FulltextInput, SearchInput
from service.version import VERSION
from tests.adapters.conftest import HttpClientContext, MakeHttp

KEYS = "r-key:team:reader,w-key:team:writer"


async def test_missing_key_is_401_and_a_reader_may_not_save(make_http: MakeHttp) -> None:
    async with make_http(auth={"api_keys": KEYS}) as client:
        anonymous = await client.post("/v1/retrieve", json={"query": "q"})
        reader = await client.post(
            "/v1/memories", json={"content": "c"}, headers={"X-API-Key": "r-key"}
        )
        writer = await client.post(
            "/v1/memories", json={"content": "c", "key": "k"}, headers={"X-API-Key": "w-key"}
        )
    assert (anonymous.status_code, anonymous.json()["error_type"]) == (401, "unauthorized")
    assert anonymous.json()["results"] == []
    assert (reader.status_code, reader.json()["error_type"]) == (403, "forbidden")
    assert writer.status_code == 201


async def test_a_writer_key_may_not_choose_another_namespace(make_http: MakeHttp) -> None:
    async with make_http(auth={"api_keys": KEYS}) as client:
        response = await client.post(
            "/v1/memories",
            json={"content": "c"},
            params={"namespace": "other"},
            headers={"Authorization": "Bearer w-key"},
        )
    assert response.json() == {
        "success": False,
        "error_type": "forbidden",
        "message": "Only admin keys may choose the namespace",
        "error": "Only admin keys may choose the namespace",
    }


async def test_validation_failures_name_the_parameter(http: httpx.AsyncClient) -> None:
    response = await http.get("/v1/search", params={"query": "q", "limit": "0"})
    assert response.status_code == 400
    assert response.json()["message"].startswith("Invalid limit value: 0.")
    assert response.json()["results"] == []
    bad_type = await http.get("/v1/search", params={"query": "q", "type": "Bad Type"})
    assert bad_type.json()["message"] == (
        "Invalid type value: 'Bad Type'. Must match ^[a-z0-9_-]{1,64}$"
    )
    no_query = await http.post("/v1/retrieve", json={"limit": 5})
    assert no_query.json()["message"] == "Missing required parameter 'query'"
    empty = await http.get("/v1/search", params={"query": ""})
    assert empty.json()["message"] == (
        "Invalid query value: ''. String should have at least 1 character"
    )
    loose = await http.get("/v1/search", params={"query": "q", "include_superseded": "yes"})
    assert (
        loose.json()["message"] == "Invalid include_superseded value: 'yes'. Must be true or false"
    )
    loose_body = await http.post("/v1/cleanup", json={"dry_run": 1})
    assert loose_body.json()["message"] == "Invalid dry_run value: 1. Must be true or false"
    not_json = await http.post(
        "/v1/retrieve", content=b"{", headers={"content-type": "application/json"}
    )
    assert not_json.json()["message"] == (
        "Invalid request body: JSON decode error "
        "(Expecting property name enclosed in double quotes: line 1 column 2 (char 1))"
    )


DEEP = "[" * 950 + "]" * 950


@pytest.mark.parametrize(
    ("body", "content_type", "reason"),
    [
        (b'{"content": "x", "metadata": {"k": "\\ud800"}}', "application/json",
         "JSON decode error (a string holds a lone UTF-16 surrogate)"),
        (b'{"content": "x", "metadata": {"\\udc00": 1}}', "application/json",
         "JSON decode error (a name holds a lone UTF-16 surrogate)"),
        (b'{"content": "x", "metadata": {"n": NaN}}', "application/json",
         "JSON decode error (NaN and Infinity are not JSON numbers)"),
        (b'{"content": "x", "metadata": {"n": 1e400}}', "application/json",
         "JSON decode error (NaN and Infinity are not JSON numbers)"),
        (f'{{"content": "x", "metadata": {{"d": {DEEP}}}}}'.encode(), "application/json",
         "JSON decode error (nested deeper than 72 levels)"),
        (b'{"content": "\xff"}', "application/json",
         "JSON decode error ('utf-8' codec can't decode byte 0xff in position 13: invalid start "
         "byte)"),
        ('{"content": "x"}'.encode("utf-16"), "application/json",
         "JSON decode error ('utf-8' codec can't decode byte 0xff in position 0: invalid start "
         "byte)"),
        (b'{"content": "x"}', "text/plain", "must be a JSON object, sent as application/json"),
        (b"", "application/json", "must be a JSON object, sent as application/json"),
    ],
)  # fmt: skip
async def test_bodies_no_store_can_hold_are_refused_with_the_reason(
    http: httpx.AsyncClient, body: bytes, content_type: str, reason: str
) -> None:
    answer = await http.post("/v1/memories", content=body, headers={"content-type": content_type})
    assert (answer.status_code, answer.json()["error_type"]) == (400, "invalid_parameter")
    assert answer.json()["message"] == f"Invalid request body: {reason}"


async def test_routes_with_a_ref_carry_their_tools_list_fields_on_failure(
    http: httpx.AsyncClient,
) -> None:
    timeline = await http.get("/v1/memories/some-key/timeline", params={"window": "0"})
    assert (timeline.status_code, timeline.json()["timeline"]) == (400, [])
    deleted = await http.delete("/v1/memories/some-key", params={"namespace": "Bad Name"})
    assert (deleted.status_code, deleted.json()["missing"]) == (400, [])
    one = await http.get("/v1/memories/some-key", params={"sortLinks": "yes"})
    assert one.status_code == 400
    assert "memories" not in one.json() and "timeline" not in one.json()


async def test_disabled_memory_is_503_while_health_answers(make_http: MakeHttp) -> None:
    async with make_http(memory={"enabled": False}) as client:
        retrieve = await client.post("/v1/retrieve", json={"query": "q"})
        deleted = await client.delete("/v1/memories/unknown-key")
        health = await client.get("/healthz")
    assert (retrieve.status_code, retrieve.json()["error_type"]) == (503, "memory_disabled")
    assert (deleted.status_code, deleted.json()["error_type"]) == (503, "memory_disabled")
    assert health.json() == {
        "success": True,
        "status": "ok",
        "version": VERSION,
        "data_folder_id": None,
    }


@pytest.mark.parametrize(
    ("method", "path", "where", "needed", "other_problem"),
    [
        ("GET", "/v1/memories/some-key/timeline", "params", {}, {"window": "0"}),
        ("GET", "/v1/search", "params", {"query": "q"}, {"limit": "0"}),
        ("GET", "/v1/fulltext", "params", {"keywords": "q"}, {"offset": "-1"}),
        ("POST", "/v1/memories/get", "json", {"keys": ["a"]}, {"ids": "x"}),
        ("POST", "/v1/retrieve", "json", {"query": "q"}, {"max_hops": 9}),
    ],
)  # fmt: skip
async def test_a_bad_sort_links_is_the_seeded_message_once_nothing_else_is_wrong(
    http: httpx.AsyncClient,
    method: str,
    path: str,
    where: str,
    needed: dict[str, Any],
    other_problem: dict[str, Any],
) -> None:
    def send(values: dict[str, Any]) -> Awaitable[httpx.Response]:
        if where == "params":
            return http.request(method, path, params=values)
        return http.request(method, path, json=values)

    alone = await send({**needed, "sortLinks": "yes"})
    assert (alone.status_code, alone.json()["message"]) == (
        400,
        "Invalid sortLinks value: 'yes'. Must be true or false",
    )
    other = await send({**needed, **other_problem, "sortLinks": "yes"})
    assert other.status_code == 400
    assert other.json()["message"].split(" value")[0] == f"Invalid {next(iter(other_problem))}"


async def test_search_disabled_answers_404_for_both_search_endpoints(
    make_http: MakeHttp,
) -> None:
    async with make_http(search={"enabled": False}) as client:
        search = await client.get("/v1/search", params={"query": "q"})
        fulltext = await client.get("/v1/fulltext", params={"keywords": "q"})
    assert (search.status_code, fulltext.status_code) == (404, 404)


async def test_comma_separated_type_and_tags_reach_the_search_input(
    make_http: MakeHttp,
) -> None:
    context = make_http()
    async with context as client:
        await client.get("/v1/search", params={"query": "q", "type": "a,b", "tags": ["x", "y,x"]})
    (_, namespace, params), *_ = context.runtime.memories.calls
    assert (namespace, params.type, params.tags) == ("default", ["a", "b"], ["x", "y"])


async def test_openapi_describes_every_tool_route_and_its_parameters(
    http: httpx.AsyncClient,
) -> None:
    spec = (await http.get("/openapi.json")).json()
    for tool in TOOLS.values():
        operation = spec["paths"][tool.path][tool.method.lower()]
        assert operation["description"] == tool.description, tool.name
        for parameter in operation.get("parameters", []):
            assert parameter.get("description"), (tool.name, parameter["name"])
    save_body = spec["components"]["schemas"]["SaveInput"]["properties"]
    assert all(field.get("description") for field in save_body.values())


@pytest.mark.parametrize(
    ("path", "model"), [("/v1/search", SearchInput), ("/v1/fulltext", FulltextInput)]
)
async def test_search_query_parameters_are_the_input_models_fields_as_declared(
    http: httpx.AsyncClient, path: str, model: type[BaseModel]
) -> None:
    spec = (await http.get("/openapi.json")).json()
    parameters = spec["paths"][path]["get"]["parameters"]
    assert [p["name"] for p in parameters] == [*model.model_fields, "namespace"]
    for parameter in parameters[:-1]:
        field = model.model_fields[parameter["name"]]
        assert parameter["description"] == field.description
        assert parameter["required"] == field.is_required()
        assert parameter["schema"].get("default") == (
            None if field.is_required() else field.default
        )


async def test_null_lists_and_objects_are_absent_ones_as_over_mcp() -> None:
    context = HttpClientContext()
    async with context as client:
        body = {"content": "x", "tags": None, "metadata": None, "links": None, "supersedes": None}
        saved = await client.post("/v1/memories", json=body)
        got = await client.post("/v1/memories/get", json={"ids": None, "keys": ["k"]})
    assert saved.status_code == 201
    assert got.json() == {"success": True, "memories": [], "missing": ["k"]}
    data = context.runtime.memories.calls[0][2]
    assert (data.tags, data.metadata, data.links, data.supersedes) == ([], {}, [], [])


async def test_query_parameters_a_route_does_not_take_are_refused_by_name(
    http: httpx.AsyncClient,
) -> None:
    search = await http.get("/v1/search", params={"query": "q", "sortlinks": "false"})
    assert (search.status_code, search.json()["message"], search.json()["results"]) == (
        400,
        "Invalid sortlinks value: 'false'. Extra inputs are not permitted",
        [],
    )
    timeline = await http.get("/v1/memories/some-key/timeline", params={"windw": "2"})
    assert (timeline.status_code, timeline.json()["message"], timeline.json()["timeline"]) == (
        400,
        "Invalid windw value: '2'. Extra inputs are not permitted",
        [],
    )
    taken = await http.get("/v1/search", params={"query": "q", "sortLinks": "false", "limit": 3})
    assert taken.status_code == 200


def nested_metadata(levels: int) -> dict[str, object]:
    """Metadata `levels` deep, itself the first level: {"d": {"d": ... {}}}."""
    metadata: dict[str, object] = {}
    for _ in range(levels - 1):
        metadata = {"d": metadata}
    return metadata


async def test_metadata_nests_64_levels_on_every_route_and_no_deeper(
    http: httpx.AsyncClient,
) -> None:
    deepest = nested_metadata(64)
    saved = await http.post("/v1/memories", json={"content": "x", "metadata": deepest})
    batch = await http.post(
        "/v1/memories/batch", json={"memories": [{"content": "y", "metadata": deepest}]}
    )
    assert (saved.status_code, batch.json()["results"][0]["success"]) == (201, True)
    deeper = await http.post("/v1/memories", json={"content": "x", "metadata": nested_metadata(65)})
    assert (
        deeper.status_code,
        deeper.json()["message"].startswith("Invalid metadata value: "),
    ) == (
        400,
        True,
    )
    assert deeper.json()["message"].endswith(". nested deeper than 64 levels")
