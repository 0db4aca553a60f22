"""The published input schemas state every rule the server enforces: the bounds of the input
models, the configured limits, no unknown properties, one type for sortLinks; and the server
reports the package version."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import annotated_types as at
import pytest
from mcp import Client
from pydantic import BaseModel

from service.api.http.app import create_app
from service.api.mcp.server import build_mcp_server
from service.config import LimitsSettings, load_settings
from service.core.inputs import ToolInput
from service.core.models import LinkSpec, UpdateInput
from service.core.search_inputs import RetrieveFilters
from service.version import VERSION
from tests.adapters.conftest import fake_runtime, runtime_ref

# annotated_types constraint -> its JSON Schema keyword for (numbers, strings, arrays).
KEYWORDS: dict[type, tuple[str, str]] = {
    at.Ge: ("ge", "minimum"),
    at.Le: ("le", "maximum"),
    at.Gt: ("gt", "exclusiveMinimum"),
    at.Lt: ("lt", "exclusiveMaximum"),
}
PYDANTIC_NAMES = {"ge", "le", "gt", "lt", "min_length", "max_length", "multiple_of"}
LIMITS = LimitsSettings(max_content_bytes=5000, max_links_per_save=7, max_refs=9, max_batch=11)


async def tool_schemas(limits: LimitsSettings | None = None) -> dict[str, dict[str, Any]]:
    runtime = fake_runtime(load_settings())
    async with Client(build_mcp_server(runtime_ref(runtime), limits=limits)) as client:
        return {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}


def input_models() -> list[type[BaseModel]]:
    """Every tool's input model, the nested ones and the PATCH body."""
    models: list[type[BaseModel]] = [LinkSpec, RetrieveFilters, UpdateInput]
    pending: list[type[BaseModel]] = [ToolInput]
    while pending:
        subclasses = pending.pop().__subclasses__()
        models += subclasses
        pending += subclasses
    return models


def keywords_in(schema: Any) -> list[tuple[str, Any]]:
    """Every (keyword, value) pair anywhere in a schema."""
    if isinstance(schema, dict):
        items: dict[str, Any] = schema  # pyright: ignore[reportUnknownVariableType]
        return [(k, v) for k, v in items.items()] + [
            pair for value in items.values() for pair in keywords_in(value)
        ]
    if isinstance(schema, list):
        values: list[Any] = schema  # pyright: ignore[reportUnknownVariableType]
        return [pair for value in values for pair in keywords_in(value)]
    return []


@pytest.mark.parametrize("model", input_models(), ids=lambda model: model.__name__)
def test_every_numeric_bound_of_an_input_model_is_in_its_schema(model: type[BaseModel]) -> None:
    stated = keywords_in(model.model_json_schema())
    missing = [
        (name, keyword, getattr(constraint, attribute))
        for name, field in model.model_fields.items()
        for constraint in field.metadata
        for kind, (attribute, keyword) in KEYWORDS.items()
        if isinstance(constraint, kind) and (keyword, getattr(constraint, attribute)) not in stated
    ]
    assert missing == []


async def test_no_schema_carries_a_bound_under_pydantic_s_name_instead_of_json_schema_s() -> None:
    openapi = create_app(load_settings()).openapi()
    leaked = {k for k, _ in keywords_in([await tool_schemas(), openapi]) if k in PYDANTIC_NAMES}
    assert leaked == set()


async def test_the_search_bounds_are_stated_in_the_mcp_schemas() -> None:
    search = (await tool_schemas())["memory_search"]["properties"]
    bounds = {name: (search[name]["minimum"], search[name]["maximum"]) for name in ("limit",)}
    assert bounds == {"limit": (1, 100)}
    assert (search["offset"]["minimum"], search["offset"]["maximum"]) == (0, 10_000)


async def test_every_tool_schema_refuses_unknown_properties() -> None:
    schemas = await tool_schemas()
    assert {
        name: schema["additionalProperties"] for name, schema in schemas.items()
    } == dict.fromkeys(schemas, False)


async def test_sort_links_is_declared_boolean_on_every_tool_that_takes_it() -> None:
    schemas = await tool_schemas()
    types = {
        name: schema["properties"]["sortLinks"]["type"]
        for name, schema in schemas.items()
        if "sortLinks" in schema["properties"]
    }
    assert types == dict.fromkeys(
        [
            "memory_get",
            "retrieve_context",
            "memory_timeline",
            "memory_search",
            "memory_fulltext_search",
        ],
        "boolean",
    )


def limit_of(prop: dict[str, Any], keyword: str) -> Any:
    return next(branch[keyword] for branch in prop.get("anyOf", [prop]) if keyword in branch)


async def test_the_configured_limits_are_stated_in_the_mcp_schemas() -> None:
    schemas = await tool_schemas(LIMITS)
    save, get, delete = (
        schemas[name]["properties"] for name in ("memory_save", "memory_get", "memory_delete")
    )
    assert [
        limit_of(save["content"], "maxLength"),
        limit_of(save["links"], "maxItems"),
        limit_of(get["ids"], "maxItems"),
        limit_of(get["keys"], "maxItems"),
        limit_of(delete["ids"], "maxItems"),
        limit_of(delete["keys"], "maxItems"),
    ] == [5000, 7, 9, 9, 9, 9]


def test_the_configured_limits_are_stated_in_the_openapi_request_bodies() -> None:
    settings = load_settings(limits=LIMITS)
    components = create_app(settings).openapi()["components"]["schemas"]
    assert [
        limit_of(components["SaveInput"]["properties"]["content"], "maxLength"),
        limit_of(components["UpdateInput"]["properties"]["content"], "maxLength"),
        limit_of(components["SaveInput"]["properties"]["links"], "maxItems"),
        limit_of(components["GetBody"]["properties"]["ids"], "maxItems"),
        limit_of(components["BatchBody"]["properties"]["memories"], "maxItems"),
    ] == [5000, 5000, 7, 9, 11]


async def test_server_info_reports_the_package_version_of_pyproject() -> None:
    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    runtime = fake_runtime(load_settings())
    async with Client(build_mcp_server(runtime_ref(runtime))) as client:
        info = client.server_info
    assert pyproject["project"]["version"] == VERSION
    assert info is not None and info.version == VERSION
