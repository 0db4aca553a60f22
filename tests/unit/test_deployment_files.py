"""The team deployment: docker-compose.yml resolves with .env.example (docker-compose config), every
service is health-checked, restarted, bounded and keeps its data in named volumes, secrets come
only from the environment, ports stay on loopback; the Dockerfile is multi-stage and non-root."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, cast

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
COMPOSE = REPO / "docker-compose.yml"
ENV_EXAMPLE = REPO / ".env.example"
needs_compose = pytest.mark.skipif(
    shutil.which("docker-compose") is None, reason="docker-compose not installed"
)


def compose_config(env_file: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["docker-compose", "--env-file", str(env_file), "-f", str(COMPOSE), "config"],
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": os.environ["PATH"]},  # nothing from the caller's environment leaks in
    )


@pytest.fixture(scope="module")
def resolved() -> dict[str, Any]:
    done = compose_config(ENV_EXAMPLE)
    assert done.returncode == 0, done.stderr
    return cast(dict[str, Any], yaml.safe_load(done.stdout))


@needs_compose
def test_compose_resolves_with_the_env_template_and_keeps_secrets_from_it(
    resolved: dict[str, Any],
) -> None:
    services = resolved["services"]
    assert sorted(services) == ["mnemograph", "neo4j", "qdrant"]
    app = services["mnemograph"]["environment"]
    assert app["MNEMO_NEO4J__PASSWORD"] == "change-me-neo4j"
    assert services["neo4j"]["environment"]["NEO4J_AUTH"] == "neo4j/change-me-neo4j"
    assert app["MNEMO_QDRANT__API_KEY"] == "change-me-qdrant"
    assert services["qdrant"]["environment"]["QDRANT__SERVICE__API_KEY"] == "change-me-qdrant"
    assert app["MNEMO_AUTH__API_KEYS"] == (
        "change-me-admin-key:default:admin,change-me-team-key:team:writer"
    )
    assert "MNEMO_AUTH__ALLOW_ANONYMOUS" not in app


@needs_compose
def test_every_service_is_health_checked_restarted_and_bounded(resolved: dict[str, Any]) -> None:
    for name, service in resolved["services"].items():
        assert service["restart"] == "unless-stopped", name
        assert service["healthcheck"]["test"][0] in ("CMD", "CMD-SHELL"), name
        assert service["deploy"]["resources"]["limits"] == {"cpus": 2.0, "memory": "2G"}, name
    depends = resolved["services"]["mnemograph"]["depends_on"]
    assert depends == {
        "neo4j": {"condition": "service_healthy"},
        "qdrant": {"condition": "service_healthy"},
    }


@needs_compose
def test_stores_and_backups_live_in_named_volumes(resolved: dict[str, Any]) -> None:
    mounts = {name: sorted(service["volumes"]) for name, service in resolved["services"].items()}
    assert mounts == {
        "neo4j": ["backups:/backups:rw", "neo4j-data:/data:rw", "neo4j-logs:/logs:rw"],
        "qdrant": ["qdrant-data:/qdrant/storage:rw", "qdrant-snapshots:/qdrant/snapshots:rw"],
        "mnemograph": ["backups:/backups:rw", "mnemograph-data:/data:rw"],
    }
    assert sorted(resolved["volumes"]) == [
        "backups",
        "mnemograph-data",
        "neo4j-data",
        "neo4j-logs",
        "qdrant-data",
        "qdrant-snapshots",
    ]


@needs_compose
def test_compose_refuses_to_start_without_the_secrets(tmp_path: Path) -> None:
    empty = tmp_path / "empty.env"
    empty.write_text("")
    done = compose_config(empty)
    assert done.returncode == 1
    assert "set NEO4J_PASSWORD in .env" in done.stderr


def test_env_template_sets_exactly_the_variables_compose_reads() -> None:
    read = set(re.findall(r"\$\{([A-Z0-9_]+)[:}]", COMPOSE.read_text()))
    template = {
        line.split("=", 1)[0]
        for line in ENV_EXAMPLE.read_text().splitlines()
        if line and not line.startswith("#")
    }
    assert template == read


def test_compose_ports_are_bound_to_loopback_and_images_pinned() -> None:
    text = COMPOSE.read_text()
    ports = re.findall(r'^\s+- "([0-9.:]+)"$', text, flags=re.MULTILINE)
    assert ports == [f"127.0.0.1:{port}:{port}" for port in (7474, 7687, 6333, 8080)]
    assert "image: neo4j:5.26-community" in text
    assert 'image: "qdrant/qdrant:${QDRANT_VERSION:-v1.20.0}"' in text


def test_dockerfile_builds_in_two_stages_and_runs_unprivileged_with_a_healthcheck() -> None:
    lines = (REPO / "Dockerfile").read_text().splitlines()
    stages = [line for line in lines if line.startswith("FROM ")]
    assert stages == ["FROM python:3.11-slim AS build", "FROM python:3.11-slim"]
    runtime = lines[lines.index(stages[1]) :]
    assert "USER 10001" in runtime
    assert any(line.startswith("HEALTHCHECK ") for line in runtime)
    assert runtime[-1] == 'CMD ["mnemograph", "serve"]'
    build = "\n".join(lines[: lines.index(stages[1])])
    assert "uv sync --frozen --no-dev" in build
    assert "LocalMiniLM().embed_sync" in build
