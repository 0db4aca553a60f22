"""Settings of the stores: Neo4j, Qdrant and the embedding model."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, SecretStr, model_validator

from service.paths import DEFAULT_STARTUP_TIMEOUT_S

BUNDLED_MODEL = "all-MiniLM-L6-v2"


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
        description="Memories plus link ends held in process for the graph walk, and the "
        "memories written since each snapshot loaded, all namespaces together (about 100 bytes "
        "each); 0: every walk runs in Neo4j.",
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
    model: str = Field(default=BUNDLED_MODEL, description="Model name (names the collection).")
    model_file: Path | None = Field(
        default=None,
        description="Local: another ONNX export of all-MiniLM-L6-v2 (such as its int8 variant, "
        "docs/performance.md), named by `model`; unset: the bundled file.",
    )
    url: str = Field(default="", description="Base URL of the openai-compatible API.")
    api_key: SecretStr = Field(default=SecretStr(""), description="Key of that API.")
    dimensions: int = Field(default=384, ge=1, le=8192, description="Vector size of the model.")
    batch_size: int = Field(default=32, ge=1, le=1024, description="Texts per embedding call.")
    threads: int = Field(default=2, ge=1, le=64, description="ONNX intra-op threads (local).")
    timeout_s: float = Field(default=30.0, gt=0, description="Timeout of one API call.")

    @model_validator(mode="after")
    def _model_file_named(self) -> EmbeddingSettings:
        """The local provider runs the bundled model unless a model file is given, whose vectors
        need a collection of their own: `model` must name it."""
        if self.model_file is None:
            if self.provider == "local" and self.model != BUNDLED_MODEL:
                raise ValueError(
                    f"embedding.model: the local provider runs {BUNDLED_MODEL!r} unless "
                    "embedding.model_file names another export of it"
                )
            return self
        if self.provider != "local":
            raise ValueError("embedding.model_file: allowed only with embedding.provider 'local'")
        if self.model == BUNDLED_MODEL:
            raise ValueError(
                f"embedding.model: must name the model file's variant, not {BUNDLED_MODEL!r} "
                "(its vectors differ, so they go in a collection of their own)"
            )
        return self
