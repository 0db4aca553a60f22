"""Where the data folder is (`MNEMO_DATA_DIR`, else the user's data folder, never the working
directory) and what a client of the daemon reads of the settings. No pydantic here: the CLI
reads this before Settings, to turn a second opener away fast and to start its clients fast.
"""

from __future__ import annotations

import os
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

APP_NAME = "mnemograph"
DATA_DIR_VARIABLE = "MNEMO_DATA_DIR"
CONFIG_FILE_VARIABLE = "MNEMO_CONFIG"
DEFAULT_CONFIG_FILE = "mnemograph.toml"


def user_data_dir(environ: Mapping[str, str]) -> Path:
    """The per-user data folder: `$XDG_DATA_HOME/mnemograph`, else `~/.local/share/mnemograph`
    (`~/Library/Application Support/mnemograph` on macOS)."""
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / APP_NAME
    xdg = environ.get("XDG_DATA_HOME", "")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "share"
    return base / APP_NAME


def resolve_data_dir(value: str | Path | None, environ: Mapping[str, str]) -> Path:
    """An absolute data folder: the given one (`~` expanded) or, when empty, the user's."""
    if value is None or str(value) == "":
        return user_data_dir(environ)
    return Path(value).expanduser().absolute()


ENV_PREFIX = "MNEMO_"
# Whole sections given as JSON in one variable (pydantic-settings reads them too).
_SECTIONS = frozenset({"MNEMO_HTTP", "MNEMO_NEO4J", "MNEMO_MCP", "MNEMO_AUTH"})
DEFAULT_HTTP_HOST = "127.0.0.1"
DEFAULT_HTTP_PORT = 8080
DEFAULT_STARTUP_TIMEOUT_S = 180.0
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
DEFAULT_LOG_LEVEL = "INFO"


@dataclass(frozen=True)
class EarlyLocation:
    """What the CLI needs before Settings: the data folder and whether it holds local stores."""

    data_dir: Path
    local_stores: bool


@dataclass(frozen=True)
class ClientConfig:
    """What a client of the daemon needs (the memory commands, the MCP bridge): the data folder,
    where `serve` listens as a client on this machine reaches it, the API key to send, and how
    long a daemon it starts may take to answer."""

    data_dir: Path
    url: str
    api_key: str
    start_timeout_s: float
    log_level: str


class _Source:
    """Settings' sources without pydantic: a variable of the environment, else the TOML file."""

    def __init__(self, environ: Mapping[str, str] | None) -> None:
        self.env = os.environ if environ is None else environ
        self.toml = _toml(Path(self.env.get(CONFIG_FILE_VARIABLE, DEFAULT_CONFIG_FILE)))

    def raw(self, variable: str, *path: str) -> object:
        if variable in self.env:
            return self.env[variable]
        node: object = self.toml
        for part in path:
            node = cast(dict[str, object], node).get(part) if isinstance(node, dict) else None
        return node

    def text(self, variable: str, *path: str) -> str:
        value = self.raw(variable, *path)
        return value if isinstance(value, str) else ""

    def prefixed(self) -> list[str]:
        """The environment's variables that Settings read (any case)."""
        return [name for name in self.env if name.upper().startswith(ENV_PREFIX)]

    def data_dir(self) -> Path:
        return resolve_data_dir(self.text(DATA_DIR_VARIABLE, "data_dir"), self.env)


def early_location(environ: Mapping[str, str] | None = None) -> EarlyLocation:
    """The data folder as Settings will see it (environment first, then the TOML file); only the
    three settings that locate stores are read, with the same precedence as Settings."""
    source = _Source(environ)
    external = source.text("MNEMO_NEO4J__URI", "neo4j", "uri") and source.text(
        "MNEMO_QDRANT__URL", "qdrant", "url"
    )
    return EarlyLocation(data_dir=source.data_dir(), local_stores=not external)


def client_config(environ: Mapping[str, str] | None = None) -> ClientConfig | None:
    """The client's settings as Settings reads them, or None where they are not all in the
    plain forms read here (Settings then reads and validates them, and says what is wrong): a
    whole section as JSON, a variable in lower case, the key taken from `auth.api_keys`."""
    source = _Source(environ)
    if any(name != name.upper() or name in _SECTIONS for name in source.prefixed()):
        return None
    data_dir = source.raw(DATA_DIR_VARIABLE, "data_dir")
    host = source.raw("MNEMO_HTTP__HOST", "http", "host")
    port = _number(source.raw("MNEMO_HTTP__PORT", "http", "port"), DEFAULT_HTTP_PORT)
    timeout = _number(
        source.raw("MNEMO_NEO4J__STARTUP_TIMEOUT_S", "neo4j", "startup_timeout_s"),
        DEFAULT_STARTUP_TIMEOUT_S,
    )
    level = source.raw("MNEMO_LOG_LEVEL", "log_level")
    key = source.raw("MNEMO_MCP__API_KEY", "mcp", "api_key") or ""
    keys = source.raw("MNEMO_AUTH__API_KEYS", "auth", "api_keys")
    if (
        not isinstance(data_dir, str | None)
        or not isinstance(host, str | None)
        or not isinstance(port, int)
        or not 1 <= port <= 65535
        or timeout is None
        or not 0 < timeout < float("inf")
        or level not in (None, *LOG_LEVELS)
        or not isinstance(key, str)
        or (not key and keys not in (None, "", []))
    ):
        return None
    return ClientConfig(
        data_dir=source.data_dir(),
        url=listen_url(DEFAULT_HTTP_HOST if host is None else host, port),
        api_key=key,
        start_timeout_s=float(timeout),
        log_level=DEFAULT_LOG_LEVEL if level is None else str(level),
    )


def listen_url(host: str, port: int) -> str:
    """Where `serve` listening on host:port is reached by a client on this machine."""
    if host in ("0.0.0.0", "::", ""):
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"


def _number(value: object, default: float) -> float | None:
    """A number as Settings reads it from a variable or the file (None: not a plain one)."""
    if value is None:
        return default
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    try:
        return float(value) if isinstance(value, str) and "_" not in value else None
    except ValueError:
        return None


def _toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as file:
            return tomllib.load(file)
    except (OSError, tomllib.TOMLDecodeError):
        return {}
