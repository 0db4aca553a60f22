"""POST /v1/memories/batch in-process: per-item checks and results, request-level refusals with
the envelope (and an empty `results`), roles, the memory switch and the OpenAPI item schema."""

from __future__ import annotations

import httpx

from tests.adapters.conftest import MakeHttp, fake_id

PATH = "/v1/memories/batch"
KEYS = "r-key:team:reader,w-key:team:writer"


async def test_each_item_is_checked_alone_and_valid_ones_are_saved(
    http: httpx.AsyncClient,
) -> None:
    items = [
        {"key": "a", "content": "first"},
        {"key": "b"},
        {"key": "c", "content": "third", "score": 101},
        {"key": "a2", "content": "again", "links": [{"key": "x", "weight": 2}]},
        "not an object",
        {"key": "d", "content": "x" * 102_401},
        {"key": "e", "content": "fifth", "links": [{"key": "a", "weight": 0.9}]},
    ]
    response = await http.post(PATH, json={"memories": items})
    assert response.status_code == 200
    body = response.json()
    assert (body["success"], body["saved"], body["failed"]) == (True, 2, 5)
    results = body["results"]
    assert results[0] == {
        "index": 0,
        "success": True,
        "id": fake_id(0),
        "key": "a",
        "created": True,
    }
    assert results[6] == {
        "index": 6,
        "success": True,
        "id": fake_id(6),
        "key": "e",
        "created": True,
    }
    failures = {r["index"]: (r["error_type"], r["message"], r["key"]) for r in results[1:6]}
    assert failures == {
        1: ("invalid_parameter", "Missing required parameter 'content'", "b"),
        2: (
            "invalid_parameter",
            "Invalid score value: 101. Input should be less than or equal to 100",
            "c",
        ),
        3: (
            "invalid_parameter",
            "Invalid links.0.weight value: 2. Input should be less than or equal to 1",
            "a2",
        ),
        4: (
            "invalid_parameter",
            "Invalid memories item: each must be an object (a memory_save body)",
            None,
        ),
        5: (
            "payload_too_large",
            "content is 102401 bytes; the limit is 102400 bytes (limits.max_content_bytes)",
            "d",
        ),
    }
    assert all(r["success"] is False and r["error"] == r["message"] for r in results[1:6])


async def test_more_items_than_max_batch_is_refused_whole(make_http: MakeHttp) -> None:
    async with make_http(limits={"max_batch": 2}) as client:
        response = await client.post(
            PATH, json={"memories": [{"content": "a"}, {"content": "b"}, {"content": "c"}]}
        )
    assert response.status_code == 400
    assert response.json() == {
        "success": False,
        "error_type": "invalid_parameter",
        "message": "Invalid memories value: 3 memories. Must be at most 2 per call",
        "error": "Invalid memories value: 3 memories. Must be at most 2 per call",
        "results": [],
    }


async def test_a_body_without_a_list_of_memories_is_invalid(http: httpx.AsyncClient) -> None:
    missing = await http.post(PATH, json={})
    not_list = await http.post(PATH, json={"memories": {"content": "c"}})
    empty = await http.post(PATH, json={"memories": []})
    assert (missing.status_code, missing.json()["message"]) == (
        400,
        "Missing required parameter 'memories'",
    )
    assert not_list.status_code == 400
    assert not_list.json()["message"].startswith("Invalid memories value: {'content': 'c'}.")
    assert empty.json()["message"] == "Invalid memories value: []. Must hold at least one memory"
    assert [r.json()["results"] for r in (missing, not_list, empty)] == [[], [], []]


async def test_a_reader_may_not_save_a_batch_and_a_writer_saves_in_its_namespace(
    make_http: MakeHttp,
) -> None:
    context = make_http(auth={"api_keys": KEYS})
    async with context as client:
        body = {"memories": [{"content": "c"}]}
        reader = await client.post(PATH, json=body, headers={"X-API-Key": "r-key"})
        writer = await client.post(PATH, json=body, headers={"X-API-Key": "w-key"})
    assert (reader.status_code, reader.json()["error_type"]) == (403, "forbidden")
    assert reader.json()["results"] == []
    assert writer.status_code == 200
    assert [(name, namespace) for name, namespace, _ in context.runtime.memories.calls] == [
        ("save_batch", "team")
    ]


async def test_disabled_memory_refuses_a_batch_with_503(make_http: MakeHttp) -> None:
    async with make_http(memory={"enabled": False}) as client:
        response = await client.post(PATH, json={"memories": [{"content": "c"}]})
    assert (response.status_code, response.json()["error_type"]) == (503, "memory_disabled")


async def test_openapi_describes_batch_items_as_memory_save_bodies(
    http: httpx.AsyncClient,
) -> None:
    spec = (await http.get("/openapi.json")).json()
    body = spec["components"]["schemas"]["BatchBody"]["properties"]["memories"]
    assert body["items"] == {"$ref": "#/components/schemas/SaveInput"}
    assert "SaveInput" in spec["components"]["schemas"]
    assert "post" in spec["paths"][PATH]
