"""What a benchmark result records of its machine: the first CPU's model and which of the vector
instructions that decide the model's speed it has."""

from __future__ import annotations

from pathlib import Path

from bench.common import cpu_facts
from bench.perf_report import run_facts

CPUINFO = """processor\t: 0
vendor_id\t: AuthenticAMD
model name\t: AMD EPYC
flags\t\t: fpu sse2 avx fma avx2 bmi2

processor\t: 1
model name\t: Another CPU
flags\t\t: avx512f avx512_vnni
"""


def test_the_first_cpus_model_and_vector_flags_are_recorded(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(CPUINFO)

    assert cpu_facts(cpuinfo) == {"cpu": "AMD EPYC", "cpu_flags": ["avx2", "fma"]}


def test_no_cpuinfo_records_nothing(tmp_path: Path) -> None:
    assert cpu_facts(tmp_path / "missing") == {}


def test_a_run_names_its_cpu_where_it_was_recorded() -> None:
    earlier = {"when": "2026-11-27T20:09:44Z", "load": [3.76, 2.12, 1.91]}
    recorded = {**earlier, "cpu": "AMD EPYC", "cpu_flags": ["avx2", "fma"]}

    assert run_facts(earlier) == "2026-11-27T20:09:44Z, load [3.76, 2.12, 1.91]"
    assert (
        run_facts(recorded) == "2026-11-27T20:09:44Z, load [3.76, 2.12, 1.91], AMD EPYC (avx2, fma)"
    )
