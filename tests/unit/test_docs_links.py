"""Every relative link in README.md and docs/ points at a file that exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
LINK = re.compile(r"\]\(([^)#:\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(REPO)) for p in PAGES])
def test_relative_links_resolve(page: Path) -> None:
    missing = [
        target for target in LINK.findall(page.read_text()) if not (page.parent / target).exists()
    ]
    assert missing == []


def test_docs_index_lists_every_page() -> None:
    index = (REPO / "docs" / "README.md").read_text()
    listed = set(LINK.findall(index))
    pages = {str(p.relative_to(REPO / "docs")) for p in PAGES[1:] if p.name != "README.md"}
    assert pages - listed == set()
