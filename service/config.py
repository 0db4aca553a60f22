"""Settings (docs/contract.md §7): environment `MNEMO_*`, nested by `__`, optional TOML file.

The only module that reads the environment; settings are built once by `load_settings`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, SecretStr, field_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from service.paths import (
    CONFIG_FILE_VARIABLE,
    DEFAULT_CONFIG_FILE,
    DEFAULT_HTTP_HOST,
    DEFAULT_HTTP_PORT,
    DEFAULT_LOG_LEVEL,
    DEFAULT_STARTUP_TIMEOUT_S,
    ENV_PREFIX,
    ClientConfig,
    listen_url,
    resolve_data_dir,
)

# Variables read by tooling around the service (test session, config file path), not by Settings.
_AUXILIARY_PREFIXES = ("MNEMO_TEST_", CONFIG_FILE_VARIABLE)

Role = Literal["reader", "writer", "admin"]
NAMESPACE_PATTERN = r"^[A-Za-z0-9_.-]{1,64}$"


class HttpSettings(BaseModel):
    host: str = Field(default=DEFAULT_HTTP_HOST, description="Address `serve` listens on.")
    port: int = Field(
        default=DEFAULT_HTTP_PORT, ge=1, le=65535, description="Port of the HTTP API and `/mcp`."
    )
    allowed_hosts: list[str] = Field(
        default_factory=list[str],
        description="Host header values accepted besides loopback and `host` (`name:*`: any port).",
    )
    allowed_origins: list[str] = Field(
        default_factory=list[str],
        description="Origin header values accepted besides loopback ones (`origin:*`: any port).",
    )
    cors_origins: list[str] = Field(
        default_factory=list[str], description="Origins CORS allows; empty: CORS off."
    )


class Neo4jSettings(BaseModel):
    uri: str = Field(default="", description="Empty: the local Neo4j the project starts itself.")
    user: str = Field(default="neo4j", description="Neo4j user.")
    password: SecretStr = Field(
        default=SecretStr(""), description="Neo4j password; for the local Neo4j, empty: no auth."
    )
    database: str = Field(default="neo4j", description="Neo4j database name.")
    bolt_port: int = Field(default=7687, ge=1, le=65535, description="Local Neo4j: Bolt port.")
    http_port: int = Field(
        default=7474, ge=1, le=65535, description="Local Neo4j: HTTP port (Neo4j Browser)."
    )
    heap: str = Field(default="1g", pattern=r"^[0-9]+[mMgG]$", description="Local Neo4j: heap.")
    startup_timeout_s: float = Field(
        default=DEFAULT_STARTUP_TIMEOUT_S,
        gt=0,
        description="Seconds to wait for Neo4j to answer at start-up.",
    )
    query_timeout_s: float = Field(default=30.0, gt=0, description="Server-side limit per query.")
    retry_time_s: float = Field(
        default=5.0,
        ge=0,
        description="How long a transient failure is retried (a single write only when Neo4j "
        "rolled it back).",
    )
    link_graph_items: int = Field(
        default=1_000_000,
        ge=0,
        description="Memories plus link ends held in process for the graph walk, all "
        "namespaces together (about 90 bytes each); 0: every walk runs in Neo4j.",
    )


class QdrantSettings(BaseModel):
    url: str = Field(default="", description="Empty: embedded Qdrant Edge under the data folder.")
    api_key: SecretStr = Field(default=SecretStr(""), description="Qdrant server API key.")
    startup_timeout_s: float = Field(
        default=30.0, gt=0, description="Seconds to wait for Qdrant to answer at start-up."
    )
    shards: int = Field(
        default=1, ge=1, le=1024, description="Shards of a collection the service creates."
    )
    replication_factor: int = Field(
        default=1, ge=1, le=16, description="Copies of each shard (a cluster's peers)."
    )
    write_consistency_factor: int = Field(
        default=1,
        ge=1,
        le=16,
        description="Replicas that must apply a write before it is acknowledged.",
    )


class EmbeddingSettings(BaseModel):
    provider: Literal["local", "openai-compatible"] = Field(
        default="local", description="`local`: the bundled ONNX model; or a `/v1/embeddings` API."
    )
    model: str = Field(default="all-MiniLM-L6-v2", description="Model name (names the collection).")
    url: str = Field(default="", description="Base URL of the openai-compatible API.")
    api_key: SecretStr = Field(default=SecretStr(""), description="Key of that API.")
    dimensions: int = Field(default=384, ge=1, le=8192, description="Vector size of the model.")
    batch_size: int = Field(default=32, ge=1, le=1024, description="Texts per embedding call.")
    threads: int = Field(default=2, ge=1, le=64, description="ONNX intra-op threads (local).")
    timeout_s: float = Field(default=30.0, gt=0, description="Timeout of one API call.")


class ApiKey(BaseModel):
    key: Annotated[SecretStr, Field(min_length=1)]
    namespace: Annotated[str, Field(pattern=NAMESPACE_PATTERN)]
    role: Role


class AuthSettings(BaseModel):
    api_keys: Annotated[list[ApiKey], NoDecode] = Field(
        default_factory=list[ApiKey],
        description="`key:namespace:role` entries, comma-separated or JSON; empty: auth off.",
    )
    allow_anonymous: bool = Field(
        default=False, description="Allow auth off on a non-loopback address."
    )

    @field_validator("api_keys", mode="before")
    @classmethod
    def _parse_api_keys(cls, value: Any) -> Any:
        """Accept a JSON list or comma-separated `key:namespace:role` entries."""
        if not isinstance(value, str):
            return value
        text = value.strip()
        if not text:
            return []
        entries: list[Any] = json.loads(text) if text.startswith("[") else text.split(",")
        return [_api_key_entry(entry) for entry in entries]

    @field_validator("api_keys")
    @classmethod
    def _distinct_keys(cls, value: list[ApiKey]) -> list[ApiKey]:
        """One key, one namespace and role: a key listed twice is refused."""
        secrets = [entry.key.get_secret_value() for entry in value]
        if len(set(secrets)) != len(secrets):
            raise ValueError("an API key is listed more than once")
        return value


def _api_key_entry(entry: Any) -> Any:
    if not isinstance(entry, str):
        return entry
    parts = entry.strip().split(":")
    if len(parts) != 3:
        raise ValueError("each API key entry must be key:namespace:role")
    return {"key": parts[0], "namespace": parts[1], "role": parts[2]}


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


class McpSettings(BaseModel):
    tool_prefix: str = Field(
        default="", pattern=r"^[A-Za-z0-9_-]*$", description="Prefix of every MCP tool name."
    )
    api_key: SecretStr = Field(
        default=SecretStr(""),
        description="The key `mnemograph mcp` sends to the server; empty: the first auth key.",
    )


class FusionSettings(BaseModel):
    """retrieve_context's fused relevance (docs/search.md#fused-relevance)."""

    k: int = Field(default=10, ge=1, le=1000, description="Rank constant of each channel's share.")
    vector: float = Field(default=1.0, ge=0.0, description="Weight of the vector channel.")
    keyword: float = Field(default=0.75, ge=0.0, description="Weight of the keyword channel.")
    kv: float = Field(default=1.0, ge=0.0, description="Weight of the kv channel.")
    vector_context: float = Field(default=0.5, ge=0.0, description="Weight of vector_context.")
    keyword_context: float = Field(default=1.5, ge=0.0, description="Weight of keyword_context.")
    word_coverage: float = Field(
        default=2.0,
        ge=0.0,
        le=100.0,
        description="BM25 per searched query word at which a keyword channel's hit counts in "
        "full; below it, in proportion (0: its rank alone counts).",
    )
    graph: float = Field(default=0.5, ge=0.0, description="Weight of graph evidence.")
    fetch: int = Field(default=50, ge=1, le=1000, description="Hits fetched per channel.")
    graph_seeds: int = Field(
        default=5, ge=0, le=100, description="Best hits the graph walk starts from."
    )
    vector_fetch: int = Field(
        default=200,
        ge=1,
        le=1000,
        description="Vector hits ranked by distinctness, of which the `fetch` best are fused.",
    )
    redundancy: float = Field(
        default=0.75,
        ge=0.0,
        le=10.0,
        description="Share of a vector hit's mean cosine to its most similar fellow hits taken "
        "off its cosine when ranking it (0: rank by cosine).",
    )
    redundancy_neighbours: int = Field(
        default=5, ge=1, le=100, description="Fellow hits the redundancy of a vector hit counts."
    )
    rerank_top: int = Field(
        default=0,
        ge=0,
        le=100,
        description="Hybrid only, 0 (default): off. N: the best max(N, limit) by fused relevance "
        "are scored again by a cross-encoder reading the query and each memory's text together, "
        "and ranked by that (0.1 to 0.25 s more for 20 on 2 cores).",
    )


class SearchSettings(BaseModel):
    enabled: bool = Field(
        default=True, description="memory_search and memory_fulltext_search, tools and endpoints."
    )
    min_vector_score: float = Field(
        default=0.2, ge=-1.0, le=1.0, description="Vector matches below this cosine are dropped."
    )
    bm25_saturation: float = Field(
        default=2.0, gt=0, description="k of the keyword channel's `s / (s + k)`."
    )
    rrf_k: int = Field(default=60, ge=1, description="k of memory_search's reciprocal rank fusion.")
    count_limit: int = Field(
        default=1000,
        ge=1,
        le=100_000,
        description="Fulltext hits memory_search and memory_fulltext_search count for `total`; "
        "beyond them `total` is a lower bound and `total_capped` is true.",
    )
    graph_max_nodes: int = Field(
        default=500, ge=1, le=100_000, description="Bound of one graph traversal."
    )
    context_neighbours: int = Field(
        default=2, ge=0, le=20, description="Strongest neighbours in a memory's context text."
    )
    context_hops: int = Field(
        default=2,
        ge=1,
        le=2,
        description="Links a memory's context text reaches: 1, its strongest neighbours; 2, "
        "also theirs, through neighbours of at most 4 links (docs/search.md).",
    )
    context_vector: Literal["text", "mean"] = Field(
        default="text",
        description="Context vector: the text's embedding where the model reads it whole, else "
        "the mean of its parts' stored vectors (text); always that mean (mean: docs/search.md).",
    )
    fusion: FusionSettings = Field(default_factory=FusionSettings)


class LimitsSettings(BaseModel):
    max_content_bytes: int = Field(default=100 * 1024, ge=1, description="Largest `content`.")
    max_metadata_bytes: int = Field(default=16 * 1024, ge=1, description="Largest `metadata`.")
    max_request_bytes: int = Field(
        default=2 * 1024 * 1024, ge=1024, description="Largest request body."
    )
    max_links_per_save: int = Field(default=1000, ge=1, description="Links in one save.")
    max_batch: int = Field(default=1000, ge=1, description="Memories in one batch save.")
    max_import_bytes: int = Field(
        default=4 * 1024**3, ge=1024, description="Largest POST /v1/import body (JSON Lines)."
    )
    max_import_line_bytes: int = Field(
        default=1024**2, ge=1024, description="Largest line of an import; longer ones fail alone."
    )
    max_refs: int = Field(default=1000, ge=1, description="ids/keys per get or delete.")
    request_timeout_s: float = Field(default=60.0, gt=0, description="Deadline of one request.")
    rate_per_s: float = Field(
        default=500.0, ge=0, description="Requests per second per key; 0: off."
    )
    rate_burst: int = Field(default=1000, ge=1, description="Requests a key may send at once.")


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
