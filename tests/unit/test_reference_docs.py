"""docs/reference/ is what the code says: regenerated in memory, every page equals the file."""

from __future__ import annotations

import re

import pytest
from pydantic import BaseModel

from devtools import docs_gen
from service.config import Settings, unknown_env_variables


def leaf_settings(model: type[BaseModel]) -> int:
    count = 0
    for field in model.model_fields.values():
        nested = field.annotation
        is_model = isinstance(nested, type) and issubclass(nested, BaseModel)
        count += leaf_settings(nested) if is_model else 1  # type: ignore[arg-type]
    return count


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    return docs_gen.pages()


def test_reference_pages_are_the_four_generated_files(pages: dict[str, str]) -> None:
    on_disk = sorted(path.name for path in docs_gen.REFERENCE.iterdir())
    assert (
        on_disk == sorted(pages) == ["configuration.md", "http.md", "mcp-tools.md", "openapi.json"]
    )


@pytest.mark.parametrize("name", ["configuration.md", "http.md", "mcp-tools.md", "openapi.json"])
def test_reference_page_matches_the_code(pages: dict[str, str], name: str) -> None:
    written = (docs_gen.REFERENCE / name).read_text()
    assert written == pages[name], f"docs/reference/{name} is stale: run make docs"


def test_configuration_page_names_every_setting_with_its_default(pages: dict[str, str]) -> None:
    page = pages["configuration.md"]
    assert (
        "| `MNEMO_MEMORY__MAX_SIZE_BYTES` | `memory.max_size_bytes` | integer | `524288000` | ≥ 1 |"
        in page
    )
    assert '| `MNEMO_NEO4J__PASSWORD` | `neo4j.password` | secret | `""` |' in page
    variables = re.findall(r"^\| `(MNEMO_[A-Z0-9_]+)` \|", page, flags=re.MULTILINE)
    assert len(variables) == leaf_settings(Settings)
    assert unknown_env_variables(dict.fromkeys(variables, "x")) == []


def test_mcp_tool_page_has_one_section_per_tool(pages: dict[str, str]) -> None:
    sections = [
        line[4:-1] for line in pages["mcp-tools.md"].splitlines() if line.startswith("## `")
    ]
    assert sorted(sections) == sorted(docs_gen.TOOLS)
