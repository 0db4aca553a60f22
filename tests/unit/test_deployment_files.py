"""The team deployment: docker-compose.yml resolves with .env.example and with the test stack's env
file (docker-compose config), every service is health-checked, restarted, bounded and keeps its
data in named volumes, secrets come only from the environment, ports stay on loopback; the
Dockerfile is multi-stage and non-root; tools/stack holds no path of one machine."""

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
STACK_ENV = REPO / "tools" / "stack" / "test.env"
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


def resolve(env_file: Path) -> dict[str, Any]:
    done = compose_config(env_file)
    assert done.returncode == 0, done.stderr
    return cast(dict[str, Any], yaml.safe_load(done.stdout))


@pytest.fixture(scope="module")
def resolved() -> dict[str, Any]:
    return resolve(ENV_EXAMPLE)


def env_names(path: Path) -> list[str]:
    return [
        line.split("=", 1)[0]
        for line in path.read_text().splitlines()
        if line and not line.startswith("#")
    ]


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
    assert set(env_names(ENV_EXAMPLE)) == read
    assert sorted(env_names(STACK_ENV)) == sorted(env_names(ENV_EXAMPLE))


def test_compose_ports_are_bound_to_loopback_and_images_default_to_the_official_ones() -> None:
    text = COMPOSE.read_text()
    ports = re.findall(r'^\s+- "([^"]+)"$', text, flags=re.MULTILINE)
    assert ports == [
        "127.0.0.1:${NEO4J_HTTP_PORT:-7474}:7474",
        "127.0.0.1:${NEO4J_BOLT_PORT:-7687}:7687",
        "127.0.0.1:${QDRANT_PORT:-6333}:6333",
        "127.0.0.1:${MNEMO_PORT:-8080}:8080",
    ]
    assert 'image: "${NEO4J_IMAGE:-neo4j:5.26-community}"' in text
    assert 'image: "${QDRANT_IMAGE:-qdrant/qdrant:v1.20.0}"' in text


@needs_compose
def test_the_template_resolves_to_the_official_images_and_default_ports(
    resolved: dict[str, Any],
) -> None:
    services = resolved["services"]
    assert {name: service["image"] for name, service in services.items()} == {
        "neo4j": "neo4j:5.26-community",
        "qdrant": "qdrant/qdrant:v1.20.0",
        "mnemograph": "mnemograph:local",
    }
    assert {name: service["ports"] for name, service in services.items()} == {
        "neo4j": ["127.0.0.1:7474:7474/tcp", "127.0.0.1:7687:7687/tcp"],
        "qdrant": ["127.0.0.1:6333:6333/tcp"],
        "mnemograph": ["127.0.0.1:8080:8080/tcp"],
    }


@needs_compose
def test_the_test_stack_runs_local_images_off_the_default_ports_with_keys() -> None:
    services = resolve(STACK_ENV)["services"]
    assert {name: service["image"] for name, service in services.items()} == {
        "neo4j": "localhost/neo4j:5.26-community-local",
        "qdrant": "localhost/qdrant:1.19.0-local",
        "mnemograph": "mnemograph:local",
    }
    assert {name: service["ports"] for name, service in services.items()} == {
        "neo4j": ["127.0.0.1:17474:7474/tcp", "127.0.0.1:17687:7687/tcp"],
        "qdrant": ["127.0.0.1:16333:6333/tcp"],
        "mnemograph": ["127.0.0.1:8090:8080/tcp"],
    }
    keys = services["mnemograph"]["environment"]["MNEMO_AUTH__API_KEYS"].split(",")
    assert [key.split(":")[1:] for key in keys] == [
        ["stack-admin", "admin"],
        ["alpha", "writer"],
        ["alpha", "reader"],
        ["beta", "writer"],
    ]


@needs_compose
def test_health_checks_run_in_a_shell_and_need_no_cypher_shell(resolved: dict[str, Any]) -> None:
    # podman's Docker API splits the arguments of a CMD check at spaces; a CMD-SHELL one is kept.
    # The Neo4j and Qdrant checks need only bash (in the official images and the stand-ins).
    tests = {name: service["healthcheck"]["test"] for name, service in resolved["services"].items()}
    assert {name: test[0] for name, test in tests.items()} == dict.fromkeys(tests, "CMD-SHELL")
    assert tests["neo4j"][1].startswith("bash -c 'exec 3<>/dev/tcp/127.0.0.1/7474 && ")
    assert tests["qdrant"][1].startswith("bash -c 'exec 3<>/dev/tcp/127.0.0.1/6333 && ")
    assert "/readyz" in tests["mnemograph"][1]
    assert "cypher-shell" not in COMPOSE.read_text()


def test_stack_tools_hold_no_absolute_path_of_this_machine() -> None:
    files = [COMPOSE, ENV_EXAMPLE, *sorted((REPO / "tools" / "stack").rglob("*"))]
    for path in (file for file in files if file.is_file()):
        text = path.read_text()
        assert "/work/" not in text and "/home/" not in text and "/root/" not in text, path


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
