"""The settings root: every group, the sources (environment `MNEMO_*` nested by `__`, then the
TOML file) and the check for variables that name no setting.

The only module that reads the environment; settings are built once by `load_settings`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from service.config.access import AuthSettings, HttpSettings, LimitsSettings, McpSettings
from service.config.search import SearchSettings
from service.config.stores import EmbeddingSettings, Neo4jSettings, QdrantSettings
from service.paths import (
    CONFIG_FILE_VARIABLE,
    DEFAULT_CONFIG_FILE,
    DEFAULT_LOG_LEVEL,
    ENV_PREFIX,
    ClientConfig,
    listen_url,
    resolve_data_dir,
)

# Variables read by tooling around the service (test session, config file path), not by Settings.
_AUXILIARY_PREFIXES = ("MNEMO_TEST_", CONFIG_FILE_VARIABLE)


class MemorySettings(BaseModel):
    enabled: bool = Field(default=True, description="The memory tools' switch.")
    max_size_bytes: int = Field(
        default=524_288_000, ge=1, description="Size budget per namespace (LRU cleanup above it)."
    )
    protected_types: list[str] = Field(
        default_factory=lambda: ["decision"], description="Types cleanup never evicts."
    )
    duplicate_threshold: float = Field(
        default=0.95,
        ge=0.0,
        le=1.0,
        description="Cosine from which memory_save lists an existing memory in `similar`.",
    )


class Settings(BaseSettings):
    """Everything configurable; see docs/contract.md §7 and docs/operations.md."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter="__",
        extra="forbid",
        toml_file=DEFAULT_CONFIG_FILE,
        hide_input_in_errors=True,  # a rejected value may be an API key or a password
    )

    data_dir: Path = Field(
        default_factory=lambda: resolve_data_dir(None, os.environ),
        description="Embedded Qdrant, local Neo4j, daemon log and lock; one process owns it.",
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        default=DEFAULT_LOG_LEVEL, description="Log level (stderr)."
    )
    http: HttpSettings = Field(default_factory=HttpSettings)
    neo4j: Neo4jSettings = Field(default_factory=Neo4jSettings)
    qdrant: QdrantSettings = Field(default_factory=QdrantSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    auth: AuthSettings = Field(default_factory=AuthSettings)
    memory: MemorySettings = Field(default_factory=MemorySettings)
    mcp: McpSettings = Field(default_factory=McpSettings)
    search: SearchSettings = Field(default_factory=SearchSettings)
    limits: LimitsSettings = Field(default_factory=LimitsSettings)

    @field_validator("data_dir", mode="before")
    @classmethod
    def _absolute_data_dir(cls, value: Any) -> Any:
        """Never relative to the working directory of whoever runs the command; empty: default."""
        return resolve_data_dir(value, os.environ) if isinstance(value, str | Path) else value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml_path = os.environ.get(CONFIG_FILE_VARIABLE, DEFAULT_CONFIG_FILE)
        toml = TomlConfigSettingsSource(settings_cls, toml_file=Path(toml_path))
        return (init_settings, env_settings, toml)

    @property
    def uses_local_stores(self) -> bool:
        """The data folder holds a store (local Neo4j or Qdrant Edge): one process owns it."""
        return not (self.neo4j.uri and self.qdrant.url)

    def client(self) -> ClientConfig:
        """What a client of the daemon reads of these settings (`paths.client_config`)."""
        key = self.mcp.api_key.get_secret_value()
        if not key and self.auth.api_keys:
            key = self.auth.api_keys[0].key.get_secret_value()
        return ClientConfig(
            data_dir=self.data_dir,
            url=listen_url(self.http.host, self.http.port),
            api_key=key,
            start_timeout_s=self.neo4j.startup_timeout_s,
            log_level=self.log_level,
        )

    @property
    def config_file(self) -> str:
        """The TOML file name users are pointed at in messages."""
        return os.environ.get(CONFIG_FILE_VARIABLE, DEFAULT_CONFIG_FILE)


def load_settings(**overrides: Any) -> Settings:
    """Build the settings once (environment, then TOML, then defaults); overrides win."""
    return Settings(**overrides)


def unknown_env_variables(environ: Mapping[str, str] | None = None) -> list[str]:
    """`MNEMO_*` variables that name no setting (reported at start-up, never ignored silently)."""
    env = os.environ if environ is None else environ
    known = _setting_paths(Settings)
    unknown: list[str] = []
    for name in env:
        if not name.startswith(ENV_PREFIX) or name.startswith(_AUXILIARY_PREFIXES):
            continue
        path = name[len(ENV_PREFIX) :].lower()
        if path not in known:
            unknown.append(name)
    return sorted(unknown)


def _setting_paths(model: type[BaseModel], prefix: str = "") -> set[str]:
    paths: set[str] = set()
    for name, field in model.model_fields.items():
        path = f"{prefix}{name}"
        paths.add(path)
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            paths |= _setting_paths(annotation, f"{path}__")
    return paths
