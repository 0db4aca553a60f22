"""Where the data folder is: `MNEMO_DATA_DIR`, else the user's data folder, never the working
directory. No pydantic here: the CLI reads this before Settings to turn a second opener away fast.
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


@dataclass(frozen=True)
class EarlyLocation:
    """What the CLI needs before Settings: the data folder and whether it holds local stores."""

    data_dir: Path
    local_stores: bool


def early_location(environ: Mapping[str, str] | None = None) -> EarlyLocation:
    """The data folder as Settings will see it (environment first, then the TOML file); only the
    three settings that locate stores are read, with the same precedence as Settings."""
    env = os.environ if environ is None else environ
    toml = _toml(Path(env.get(CONFIG_FILE_VARIABLE, DEFAULT_CONFIG_FILE)))

    def value(variable: str, *path: str) -> str:
        if variable in env:
            return env[variable]
        node: object = toml
        for part in path:
            node = cast(dict[str, object], node).get(part) if isinstance(node, dict) else None
        return node if isinstance(node, str) else ""

    external = value("MNEMO_NEO4J__URI", "neo4j", "uri") and value(
        "MNEMO_QDRANT__URL", "qdrant", "url"
    )
    data_dir = resolve_data_dir(value(DATA_DIR_VARIABLE, "data_dir"), env)
    return EarlyLocation(data_dir=data_dir, local_stores=not external)


def _toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as file:
            return tomllib.load(file)
    except (OSError, tomllib.TOMLDecodeError):
        return {}
