"""docs/contract.md and the code agree: every tool and parameter the MCP server exposes is
documented, and every documented one exists; every documented setting is a real one."""

from __future__ import annotations

import re
from pathlib import Path

from mcp import Client

from service.api.mcp.server import build_mcp_server
from service.app import RuntimeRef
from service.config import unknown_env_variables

CONTRACT = Path(__file__).resolve().parents[2] / "docs" / "contract.md"


def documented_tools() -> dict[str, set[str]]:
    """Tool → parameters, from the `### tool` sections of §4 and their parameter tables."""
    text = CONTRACT.read_text()
    tools_part = text.split("## 4. Tools", 1)[1].split("\n## 5.", 1)[0]
    tools: dict[str, set[str]] = {}
    for section in re.split(r"^### ", tools_part, flags=re.MULTILINE)[1:]:
        name = section.split("\n", 1)[0].strip()
        tools[name] = set(re.findall(r"^\| `([A-Za-z_]+)` \|", section, flags=re.MULTILINE))
    return tools


async def test_every_tool_and_parameter_in_the_code_is_documented_and_vice_versa() -> None:
    async with Client(build_mcp_server(RuntimeRef())) as client:
        listed = (await client.list_tools()).tools
    in_code = {tool.name: set(tool.input_schema["properties"]) for tool in listed}
    documented = documented_tools()
    assert sorted(documented) == sorted(in_code)
    for name, parameters in in_code.items():
        assert documented[name] == parameters, name


def test_every_documented_setting_names_a_real_setting() -> None:
    text = CONTRACT.read_text().split("## 7. Configuration", 1)[1]
    names = {name for name in re.findall(r"`(MNEMO_[A-Z_]+)`", text) if name != "MNEMO_CONFIG"}
    assert len(names) >= 15
    assert unknown_env_variables(dict.fromkeys(names, "x")) == []
