"""Settings (docs/contract.md §7): environment `MNEMO_*`, nested by `__`, optional TOML file;
one group per module (access, search, stores) under the root (`settings`)."""

from service.config.access import (
    NAMESPACE_PATTERN,
    ApiKey,
    AuthSettings,
    HttpSettings,
    LimitsSettings,
    McpSettings,
    Role,
)
from service.config.search import FusionSettings, SearchSettings
from service.config.settings import (
    MemorySettings,
    Settings,
    load_settings,
    unknown_env_variables,
)
from service.config.stores import EmbeddingSettings, Neo4jSettings, QdrantSettings

__all__ = [
    "NAMESPACE_PATTERN",
    "ApiKey",
    "AuthSettings",
    "EmbeddingSettings",
    "FusionSettings",
    "HttpSettings",
    "LimitsSettings",
    "McpSettings",
    "MemorySettings",
    "Neo4jSettings",
    "QdrantSettings",
    "Role",
    "SearchSettings",
    "Settings",
    "load_settings",
    "unknown_env_variables",
]
