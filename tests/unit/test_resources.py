"""The run-time resources are found in a checkout and in an installed wheel's bundled/ folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from service import resources

REPO = Path(__file__).resolve().parents[2]


def test_a_checkout_reads_the_cypher_library_and_the_maven_project_at_the_repository_root() -> None:
    assert not resources.BUNDLED_DIR.exists()
    assert resources.resource_dir("cypher") == REPO / "cypher"
    assert resources.resource_dir("neo4j") == REPO / "tools" / "neo4j"


def test_an_installed_package_reads_its_bundled_copies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "cypher").mkdir()
    (tmp_path / "neo4j").mkdir()
    monkeypatch.setattr(resources, "BUNDLED_DIR", tmp_path)
    assert resources.resource_dir("cypher") == tmp_path / "cypher"
    assert resources.resource_dir("neo4j") == tmp_path / "neo4j"


def test_the_wheel_maps_each_checkout_folder_to_its_bundled_name() -> None:
    pyproject = (REPO / "pyproject.toml").read_text()
    for name, checkout in resources.CHECKOUT_PATHS.items():
        assert f'"{checkout}" = "service/bundled/{name}"' in pyproject
