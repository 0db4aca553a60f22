"""Where data lives: MNEMO_DATA_DIR, else the user's data folder, never the working directory; the
early reading the CLI does before Settings agrees with Settings."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from service.config import Settings
from service.paths import early_location, user_data_dir
from service.stores.neo4j_local import LocalNeo4j

pytestmark = pytest.mark.skipif(sys.platform == "darwin", reason="XDG layout")


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("MNEMO_DATA_DIR", "MNEMO_CONFIG", "MNEMO_NEO4J__URI", "MNEMO_QDRANT__URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)


def test_the_default_is_the_users_data_folder_whatever_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = tmp_path / "home" / ".local" / "share" / "mnemograph"
    assert Settings().data_dir == expected
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert Settings().data_dir == expected
    assert early_location().data_dir == expected


def test_xdg_data_home_moves_the_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert Settings().data_dir == tmp_path / "xdg" / "mnemograph"


def test_a_relative_xdg_data_home_is_ignored_as_the_specification_says(tmp_path: Path) -> None:
    assert user_data_dir({"XDG_DATA_HOME": "relative/xdg"}) == (
        tmp_path / "home" / ".local" / "share" / "mnemograph"
    )


def test_mnemo_data_dir_wins_and_is_made_absolute_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("MNEMO_DATA_DIR", "relative-data")
    assert Settings().data_dir == tmp_path / "relative-data"
    assert early_location().data_dir == tmp_path / "relative-data"
    monkeypatch.setenv("MNEMO_DATA_DIR", "~/memories")
    assert Settings().data_dir == tmp_path / "home" / "memories"


def test_an_empty_mnemo_data_dir_means_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MNEMO_DATA_DIR", "")
    assert Settings().data_dir == tmp_path / "home" / ".local" / "share" / "mnemograph"


def test_the_early_reading_follows_the_toml_file_like_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "custom.toml"
    config.write_text(
        'data_dir = "/srv/mnemo"\n[neo4j]\nuri = "bolt://db:7687"\n[qdrant]\nurl = "http://q:6333"\n'
    )
    monkeypatch.setenv("MNEMO_CONFIG", str(config))
    early = early_location()
    assert early.data_dir == Settings().data_dir == Path("/srv/mnemo")
    assert early.local_stores is Settings().uses_local_stores is False
    monkeypatch.setenv("MNEMO_QDRANT__URL", "")
    assert early_location().local_stores is Settings().uses_local_stores is True


def test_the_local_neo4j_lives_under_the_data_folder(tmp_path: Path) -> None:
    settings = Settings()
    assert LocalNeo4j(settings.neo4j, settings.data_dir).home == settings.data_dir / "neo4j"
