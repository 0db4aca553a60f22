"""Neo4j Browser, as a person uses it: headless Chromium opens the local Neo4j's Browser, applies
cypher/browser/style.grass, runs the saved queries and shows the graph; the screenshot is the one
in docs/browser.md (MNEMO_TEST_UPDATE_DOCS=1 rewrites it)."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from playwright.async_api import Locator, Page, async_playwright, expect

from service.config import Neo4jSettings, Settings
from service.core.memories import MemoryService
from tests.browser_graph import save_graph

REPO = Path(__file__).resolve().parents[2]
BROWSER_QUERIES = REPO / "cypher" / "browser"
SCREENSHOT = REPO / "docs" / "browser-graph.png"
CHROMIUM = shutil.which("chromium")
# Fill colour of each memory type in style.grass.
COLOURS = {
    "decision": "#F79767",
    "design": "#57C7E3",
    "bugfix": "#F16667",
    "feature": "#8DCC93",
    "observation": "#C990C0",
}
CAPTIONS = {
    "Neo4j stores memories and links": "decision",
    "Qdrant holds the vectors": "decision",
    "Retrieval fuses four channels": "design",
    "Links sorted by weight × score": "bugfix",
    "Timeline around a memory": "feature",
    "Hybrid p50 89 ms at 10k": "observation",
}


def browser_url(neo4j: Neo4jSettings) -> str:
    return (
        f"http://127.0.0.1:{neo4j.http_port}/browser/"
        f"?dbms=bolt://127.0.0.1:{neo4j.bolt_port}&preselectAuthMethod=NO_AUTH"
    )


async def run(page: Page, command: str) -> None:
    """Type a command into the editor, run it, and wait for its result frame."""
    frames = await page.locator("article").count()
    await page.locator(".monaco-editor textarea").first.click()
    await page.keyboard.insert_text(command)
    await page.keyboard.press("Control+Enter")
    await expect(page.locator("article")).to_have_count(frames + 1, timeout=30_000)


async def texts(groups: Locator) -> list[str]:
    """The text of each SVG group, its caption lines joined by spaces."""
    found: list[str] = await groups.evaluate_all(
        "groups => groups.map(g => Array.from(g.querySelectorAll('text'))"
        ".map(t => t.textContent).join(' ').replace(/\\s+/g, ' ').trim())"
    )
    return found


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
@pytest.mark.skipif(
    bool(os.environ.get("MNEMO_TEST_NEO4J_URI")),
    reason="an external Neo4j (MNEMO_TEST_NEO4J_URI) has no known Browser address",
)
async def test_saved_query_renders_the_styled_graph_in_neo4j_browser(
    memories: MemoryService, settings: Settings, namespace: str, tmp_path: Path
) -> None:
    await save_graph(memories, settings.neo4j, namespace)
    grass = re.sub(r"\s+", " ", (BROWSER_QUERIES / "style.grass").read_text())
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = await chromium.new_page(viewport={"width": 1200, "height": 820})
        await page.goto(browser_url(settings.neo4j))
        await page.get_by_text("Connected to Neo4j").wait_for(timeout=60_000)
        await run(page, f":style {grass}")
        await run(page, (BROWSER_QUERIES / "label_by_type.cypher").read_text())
        await run(page, f":param namespace => '{namespace}'")
        await run(page, ":param key => 'adr-graph'")
        await run(page, (BROWSER_QUERIES / "memory_neighbourhood.cypher").read_text())
        graph = page.locator("article").first
        await expect(graph.locator("g.relationship")).to_have_count(6, timeout=30_000)
        await page.wait_for_timeout(3_000)  # let the force layout settle for the picture
        captions = await texts(graph.locator("g.node"))
        weights = await texts(graph.locator("g.relationship"))
        fills: list[str] = await graph.locator("g.node circle.b-outline").evaluate_all(
            "circles => circles.map(c => c.getAttribute('fill'))"
        )
        shot = await graph.screenshot(path=str(tmp_path / "browser-graph.png"))
        await chromium.close()
    assert sorted(captions) == sorted(CAPTIONS)
    assert sorted(weights) == ["0.3", "0.5", "0.6", "0.7", "0.8", "0.9"]
    by_caption = dict(zip(captions, fills, strict=True))
    for caption, kind in CAPTIONS.items():
        assert by_caption[caption] == COLOURS[kind], caption
    assert shot[:8] == b"\x89PNG\r\n\x1a\n"
    if os.environ.get("MNEMO_TEST_UPDATE_DOCS") == "1":
        SCREENSHOT.write_bytes(shot)


def test_browser_guide_shows_the_screenshot_and_lists_every_saved_query() -> None:
    guide = (REPO / "docs" / "browser.md").read_text()
    assert "![" in guide and "(browser-graph.png)" in guide
    assert SCREENSHOT.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    listed = set(re.findall(r"`([a-z_]+\.(?:cypher|grass))`", guide))
    assert listed == {path.name for path in BROWSER_QUERIES.iterdir()}
