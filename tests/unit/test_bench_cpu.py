"""make bench's CPU per retrieve: each process's CPU per operation, and the throughput the service
and Neo4j would reach with every core to themselves."""

from __future__ import annotations

import pytest

from bench import perf


def test_cpu_per_operation_and_the_ceiling_of_the_service_and_neo4j_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(perf.os, "cpu_count", lambda: 2)
    before = {"service": 1.0, "neo4j": 0.5, "bench_client": 0.25}
    after = {"service": 2.5, "neo4j": 1.0, "bench_client": 0.5}
    assert perf.cpu_per_op(before, after, 100) == {
        "service": 15.0,
        "neo4j": 5.0,
        "bench_client": 2.5,
        "ceiling_ops_per_s": 100.0,
    }
