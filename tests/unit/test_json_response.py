"""HTTP answers are encoded by orjson: the same values as Starlette's encoder, compact UTF-8; what
orjson refuses falls back to Starlette's encoder."""

from __future__ import annotations

import json

from starlette.responses import JSONResponse as StarletteJSONResponse

from service.api.http.responses import JSONResponse

PAYLOAD = {
    "success": True,
    "memory": {
        "key": "café ☕ 東京",
        "score": 0.1 + 0.2,
        "tiny": 1e-05,
        "large": 1e20,
        "count": 2**53,
        "tags": ['a"b', "line\nbreak", "\u2028"],
        "summary": None,
    },
}


def test_the_body_is_compact_utf8_json_of_the_same_values_as_starlettes() -> None:
    ours = JSONResponse(PAYLOAD, status_code=201)
    body = bytes(ours.body)
    assert json.loads(body) == json.loads(bytes(StarletteJSONResponse(PAYLOAD).body)) == PAYLOAD
    assert body.startswith(b'{"success":true,"memory":{"key":"caf\xc3\xa9 \xe2\x98\x95 ')
    assert b", " not in body and b": " not in body
    assert (ours.status_code, ours.media_type) == (201, "application/json")
    assert ours.headers["content-length"] == str(len(body))


def test_what_orjson_refuses_is_encoded_as_starlette_encodes_it() -> None:
    payload = {"metadata": {"n": 123456789012345678901234567890}, "memories": [{"id": "a"}]}
    assert (
        JSONResponse(payload).body
        == StarletteJSONResponse(payload).body
        == (b'{"metadata":{"n":123456789012345678901234567890},"memories":[{"id":"a"}]}')
    )
