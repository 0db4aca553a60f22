"""Schemathesis against the real server's /openapi.json, with keys: generated requests for every
operation, valid and invalid, never get a 5xx, and every answer fits the documented statuses,
content types and schemas. Short in CI; `make soak` runs the long profile."""
# schemathesis ships partial type information: its checks and strategies are typed `Unknown`.
# pyright: reportUnknownMemberType=false, reportUnknownVariableType=false
# pyright: reportUnknownArgumentType=false

from __future__ import annotations

from typing import Any, cast

import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from tests.e2e.conftest import SOAK, Tenants

EXAMPLES = 150 if SOAK else 8
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
SKIPPED = {"/metrics"}  # Prometheus text exposition, not JSON


def fuzz(operation: Any, mode: GenerationMode, headers: dict[str, str]) -> int:
    """Run `EXAMPLES` generated cases of one operation (the first failure, shrunk, is raised);
    how many ran."""
    tried = 0

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=not SOAK,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    def run(case: Any) -> None:
        nonlocal tried
        tried += 1
        case.call_and_validate(headers=headers, checks=CHECKS, timeout=60)

    try:
        run()
    except Unsatisfiable:  # no invalid request exists for an operation without parameters
        if mode is GenerationMode.POSITIVE:
            raise
    return tried


def test_generated_requests_get_no_5xx_and_fit_the_schema(tenants: Tenants) -> None:
    schema = schemathesis.openapi.from_url(f"{tenants.url}/openapi.json")
    headers = tenants.scratch_headers()
    operations = [cast(Any, result).ok() for result in schema.get_all_operations()]
    tried = 0
    for operation in operations:
        if operation.path not in SKIPPED:
            tried += sum(fuzz(operation, mode, headers) for mode in GenerationMode)
    print(f"fuzz: {tried} generated requests over {len(operations) - len(SKIPPED)} operations")
    assert len(operations) >= 17  # every route, new ones included
    assert tried >= (len(operations) - len(SKIPPED)) * EXAMPLES
