"""The PCG report in Debian's Chromium: a 7,800-trial run opens fast, decodes no closed section, filters work; the
demo's report sent alone shows every image and names its classifier with the caveat.

The large run is fabricated (``large_report.py``): 39 teams × 20 letters × 10 trials, six letters absent. Load time
is asserted generously here (the machine is shared); ``benchmarks/bench_pcg_report.py`` measures it for
``docs/benchmarks.md``. With ``PODIUM_PCG_SCREENSHOTS=DIR`` the demo's page is kept as ``DIR/pcg-report.png``
(``docs/``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from podium.tracks.pcg.classifiers import ClassifierSpec
from podium.tracks.pcg.competition import open_competition
from podium.tracks.pcg.editions import edition
from podium.tracks.pcg.pipeline import evaluate
from tests.tracks.pcg.large_report import LARGE_LETTERS, build_report, fabricate_run, gallery_tiles

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).resolve().parents[4] / "examples" / "pcg-2023-unity"
LETTERS = LARGE_LETTERS
SCREENSHOTS = os.environ.get("PODIUM_PCG_SCREENSHOTS")


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("large") / "competition"
    fabricate_run(root, teams=39, letters=LETTERS)
    return build_report(root)


class Opened:
    """A page with everything it asked for and every problem it reported."""

    def __init__(self, browser: Browser, path: Path) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.page: Page = self.context.new_page()
        self.requests: list[str] = []
        self.problems: list[str] = []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("pageerror", lambda error: self.problems.append(f"uncaught: {error}"))
        self.page.on("console", lambda m: self.problems.append(m.text) if m.type in ("error", "warning") else None)
        self.url = path.resolve().as_uri()
        self.page.goto(self.url, wait_until="load")

    def load_ms(self) -> float:
        return float(self.page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd"))

    def images(self) -> list[dict[str, object]]:
        script = (
            "[...document.images].map(i => ({team: i.closest('details').dataset.team, "
            "done: i.complete && i.naturalWidth === 96, letter: i.closest('.trial').dataset.letter}))"
        )
        found: list[dict[str, object]] = self.page.evaluate(script)
        return found

    def visible_tiles(self) -> list[dict[str, str]]:
        script = (
            "[...document.querySelectorAll('.trial')].filter(t => t.offsetParent !== null).map(t => ({team: "
            "t.closest('details').dataset.team, letter: t.dataset.letter, verdict: t.dataset.verdict}))"
        )
        found: list[dict[str, str]] = self.page.evaluate(script)
        return found


def test_a_large_report_opens_fast_and_decodes_only_the_open_section(browser: Browser, large: Path) -> None:
    tiles = gallery_tiles(large.read_text("utf-8"))
    assert sum(len(t) for t in tiles.values()) == 7800
    opened = Opened(browser, large)
    assert opened.load_ms() < 5000  # measured by benchmarks/bench_pcg_report.py: see docs/benchmarks.md
    assert opened.requests == [opened.url]  # the page alone: nothing else fetched
    first = next(iter(tiles))
    images = opened.images()
    assert {i["team"] for i in images} == {first}  # closed sections have no image element at all
    assert len(images) == sum(bool(t[7]) for t in tiles[first]) and all(i["done"] for i in images)
    assert opened.page.locator("details.team:not([open]) .trial").count() == 0
    assert opened.problems == []


def test_the_large_report_has_only_the_competitions_letters(browser: Browser, large: Path) -> None:
    opened = Opened(browser, large)
    heat = opened.page.locator("table.heat tr").first.locator("th").all_inner_texts()
    assert heat == ["team", *LETTERS]
    assert opened.page.locator("#f-letter option").all_inner_texts() == ["all", *LETTERS]
    weights = opened.page.locator("h2:has-text('Letter weights') + table tr td:first-child").all_inner_texts()
    assert weights == list(LETTERS)
    assert {i["letter"] for i in opened.images()} <= set(LETTERS)


def test_the_gallery_filters_by_team_letter_and_verdict(browser: Browser, large: Path) -> None:
    tiles = gallery_tiles(large.read_text("utf-8"))
    opened = Opened(browser, large)
    page = opened.page
    page.select_option("#f-letter", "M")
    shown = opened.visible_tiles()
    first = next(iter(tiles))
    assert shown and {t["letter"] for t in shown} == {"M"} and {t["team"] for t in shown} == {first}
    team = list(tiles)[17]
    page.select_option("#f-team", team)  # opens the team's section, hides the others
    shown = opened.visible_tiles()
    assert {t["team"] for t in shown} == {team} and len(shown) == sum(t[0] == "M" for t in tiles[team])
    assert page.locator("details.team:visible").count() == 1
    page.select_option("#f-letter", "")
    page.select_option("#f-verdict", "width_boundary")
    shown = opened.visible_tiles()
    assert {t["verdict"] for t in shown} == {"width_boundary"}
    assert len(shown) == sum(t[5] == "width_boundary" for t in tiles[team])
    summary = page.locator(f"details.team[data-team='{team}'] .shown").inner_text()
    assert summary == f"{len(shown)} shown"
    page.select_option("#f-team", "")
    assert page.locator("details.team:visible").count() == len(tiles)
    assert {i["team"] for i in opened.images()} == {first, team}  # only the opened sections were ever built
    assert opened.problems == []


def test_the_demo_report_sent_alone_shows_every_image_and_names_its_classifier(
    browser: Browser, tmp_path: Path
) -> None:
    root = tmp_path / "demo"
    shutil.copytree(EXAMPLE, root)
    evaluate(open_competition(root, edition(2023)), ClassifierSpec("embedded"))
    alone = tmp_path / "mail" / "report.html"
    alone.parent.mkdir()
    shutil.copy(root / "result" / "report.html", alone)
    shutil.rmtree(root)  # nothing the report could have pointed into is left
    opened = Opened(browser, alone)
    page = opened.page
    text = page.locator("#provenance").inner_text()
    assert "classifier embedded" in text and "sha256:" in text
    assert "only approximates the official ViT" in text and "Spearman 0.6" in text and "Box2D" in text
    assert page.locator("#provenance .warn").count() == 1
    page.evaluate("document.querySelectorAll('details.team').forEach(d => { d.open = true; })")
    page.wait_for_function("[...document.images].length === 138 && [...document.images].every(i => i.complete)")
    images = opened.images()
    assert len(images) == 138 and all(i["done"] for i in images)  # every level podium built (12 failed in build)
    assert {i["letter"] for i in images} == {"I", "L", "U"}
    assert page.locator("table.heat tr").first.locator("th").all_inner_texts() == ["team", "I", "L", "U"]
    assert page.locator(".trial").count() == 150
    assert opened.requests == [opened.url] and opened.problems == []
    if SCREENSHOTS:
        page.evaluate("document.querySelectorAll('details.team').forEach((d, i) => { d.open = i === 0; })")
        page.screenshot(path=str(Path(SCREENSHOTS) / "pcg-report.png"), full_page=True)
