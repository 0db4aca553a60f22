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


ANCHORED = re.compile(r"\]\(([^)#:\s]*)#([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} (.+)$", re.MULTILINE)
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to -."""
    kept = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return kept.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The anchors of a page's headings (a repeated one also as -1, -2...)."""
    found: set[str] = set()
    for heading in HEADING.findall(FENCE.sub("", page.read_text())):
        anchor = base = slug(heading)
        number = 0
        while anchor in found:
            number += 1
            anchor = f"{base}-{number}"
        found.add(anchor)
    return found


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(REPO)) for p in PAGES])
def test_anchors_name_a_heading_of_their_page(page: Path) -> None:
    broken = [
        f"{target}#{anchor}"
        for target, anchor in ANCHORED.findall(FENCE.sub("", page.read_text()))
        if (target == "" or target.endswith(".md"))
        and anchor not in anchors(page.parent / target if target else page)
    ]
    assert broken == []


def test_an_anchor_is_its_heading_as_github_writes_it() -> None:
    assert slug("10k at 2026-11-24 20:56Z: word coverage, on a slower spell") == (
        "10k-at-2026-11-24-2056z-word-coverage-on-a-slower-spell"
    )
    assert slug("memory_save, step by step") == "memory_save-step-by-step"
    assert slug("4. Upgrades") == "4-upgrades"
