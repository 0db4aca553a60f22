"""The compose file validates and binds every port to loopback."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="docker-compose not installed")
def test_docker_compose_config_is_valid() -> None:
    done = subprocess.run(
        ["docker-compose", "-f", str(REPO / "docker-compose.yml"), "config", "-q"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_compose_ports_are_bound_to_loopback_and_images_pinned() -> None:
    text = (REPO / "docker-compose.yml").read_text()
    ports = [
        line.strip()
        for line in text.splitlines()
        if line.strip().startswith('- "') and ":" in line and "/" not in line
    ]
    assert ports == [
        '- "127.0.0.1:7474:7474"',
        '- "127.0.0.1:7687:7687"',
        '- "127.0.0.1:6333:6333"',
        '- "127.0.0.1:8080:8080"',
    ]
    assert "image: neo4j:5.26-community" in text
