"""Where the files read at run time live: the Cypher library and the local Neo4j's Maven project.
A checkout keeps them at the repository root; the wheel carries them under `service/bundled/`.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
BUNDLED_DIR = PACKAGE_DIR / "bundled"
# Each resource: its folder in a checkout, relative to the repository root (pyproject.toml maps
# it to `bundled/<name>` in the wheel).
CHECKOUT_PATHS = {"cypher": "cypher", "neo4j": "tools/neo4j"}


def resource_dir(name: str) -> Path:
    """The folder of one resource: the wheel's copy when the package is installed, else the
    checkout's."""
    bundled = BUNDLED_DIR / name
    if bundled.is_dir():
        return bundled
    return PACKAGE_DIR.parent / CHECKOUT_PATHS[name]
