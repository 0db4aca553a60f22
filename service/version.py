"""The package's version as installed (the `version` of pyproject.toml): what MCP's
`serverInfo`, `/healthz` and the OpenAPI document report."""

from __future__ import annotations

from importlib.metadata import version

VERSION = version("mnemograph")
