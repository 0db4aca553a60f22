"""What a client of the daemon reads of the settings without building Settings (the memory
commands, the MCP bridge) agrees with Settings, or defers to them where a value is not plain."""

from __future__ import annotations

import os
from pathlib import Path
from typing import get_args

import pytest
from pydantic import ValidationError

from service.config import Settings
from service.paths import LOG_LEVELS, client_config


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.upper().startswith("MNEMO_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)


def test_without_configuration_the_client_reads_the_defaults_of_settings() -> None:
    assert client_config() == Settings().client()
    assert Settings().client().url == "http://127.0.0.1:8080"


def test_the_client_reads_the_environment_as_settings_do(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {
        "MNEMO_HTTP__HOST": "0.0.0.0",
        "MNEMO_HTTP__PORT": "9001",
        "MNEMO_MCP__API_KEY": "mine",
        "MNEMO_AUTH__API_KEYS": "k1:team:writer",
        "MNEMO_NEO4J__STARTUP_TIMEOUT_S": "12.5",
        "MNEMO_LOG_LEVEL": "WARNING",
        "MNEMO_DATA_DIR": "relative-data",
    }.items():
        monkeypatch.setenv(name, value)
    client = client_config()
    assert client == Settings().client()
    assert client is not None
    assert (client.url, client.api_key, client.start_timeout_s) == (
        "http://127.0.0.1:9001",
        "mine",
        12.5,
    )


def test_the_client_follows_the_toml_file_under_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "custom.toml"
    config.write_text(
        'data_dir = "/srv/mnemo"\nlog_level = "DEBUG"\n[http]\nhost = "::1"\nport = 9100\n'
        '[neo4j]\nstartup_timeout_s = 30\n[mcp]\napi_key = "from-file"\n'
    )
    monkeypatch.setenv("MNEMO_CONFIG", str(config))
    assert client_config() == Settings().client()
    monkeypatch.setenv("MNEMO_HTTP__PORT", "9200")
    client = client_config()
    assert client == Settings().client()
    assert client is not None and client.url == "http://[::1]:9200"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("MNEMO_AUTH__API_KEYS", "k1:team:writer,k2:ops:admin"),  # the first key: Settings parse
        ("MNEMO_HTTP", '{"port": 9002}'),  # a whole section as JSON
        ("mnemo_http__port", "9003"),  # a variable in lower case
        ("MNEMO_HTTP__PORT", "9004.0"),
    ],
)
def test_values_in_other_forms_are_left_to_settings(
    name: str, value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(name, value)
    assert client_config() is None


@pytest.mark.parametrize(
    ("name", "value"),
    [("MNEMO_HTTP__PORT", "99999"), ("MNEMO_LOG_LEVEL", "info"), ("MNEMO_HTTP__PORT", "")],
)
def test_invalid_values_are_left_to_settings_which_refuse_them(
    name: str, value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(name, value)
    assert client_config() is None
    with pytest.raises(ValidationError):
        Settings()


def test_the_log_levels_are_those_of_settings() -> None:
    assert get_args(Settings.model_fields["log_level"].annotation) == LOG_LEVELS
