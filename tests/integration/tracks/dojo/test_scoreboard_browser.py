"""The public scoreboard page in Chromium, through a season's open, frozen and revealed states.

A real ``podium serve`` on a SQLite season; the platform makes the moves (open, submissions judged by the real
sandbox, freeze, reveal) and the page is read after each. Screenshots go to ``PODIUM_DOJO_SCREENSHOTS`` (docs/).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from podium.core.clock import SystemClock
from podium.core.execution.sandbox import Sandbox
from podium.core.storage.sql import sqlite_url
from podium.tracks.dojo import pages
from podium.tracks.dojo.platform import Dojo
from podium.tracks.dojo.problem import load_problem
from podium.tracks.dojo.records import Role
from podium.tracks.dojo.store import open_store
from podium.tracks.dojo.worker import work
from tests.needs import need_module
from tests.tracks.dojo.serving import podium_serve
from tests.tracks.dojo.test_platform import GOLF, STAGE_ONLY

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.slow
CORPUS = Path(__file__).parents[3] / "tracks" / "dojo" / "corpus"  # tests/tracks/dojo/corpus
SCREENSHOTS = os.environ.get("PODIUM_DOJO_SCREENSHOTS")


def rows(page: Page) -> list[list[str]]:
    return [[cell.inner_text() for cell in row.locator("td").all()] for row in page.locator("tbody tr").all()]


def test_the_scoreboard_follows_the_season_open_frozen_revealed(
    browser: Browser, bubblewrap: Sandbox, tmp_path: Path
) -> None:
    need_module("fastapi", "web")
    url = sqlite_url(tmp_path / "dojo.sqlite3")
    dojo = Dojo(open_store(url), SystemClock(), lambda: bubblewrap)
    dojo.add_user("sam", Role.SETTER)
    ann, _ = dojo.add_user("ann", Role.SOLVER)
    bob, _ = dojo.add_user("bob", Role.SOLVER)
    dojo.create_season("s1")
    dojo.add_problem("s1", "fib", "sam", load_problem(CORPUS / "problem"))
    assert dojo.validate("fib").accepted
    dojo.open("fib")
    dojo.submit(ann, "fib", GOLF)  # Reward Correct
    dojo.submit(bob, "fib", STAGE_ONLY)  # Stage Pass only
    assert work(dojo, bubblewrap) == 2

    with podium_serve(url, tmp_path) as base:
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        page = context.new_page()

        def show(state: str) -> list[list[str]]:
            page.goto(f"{base}/dojo/scoreboard/s1")
            assert page.locator("h1").inner_text() == "Scoreboard of s1"
            assert page.locator("#state-fib").inner_text().startswith(f"fib: {state}")
            if SCREENSHOTS:
                page.screenshot(path=str(Path(SCREENSHOTS) / f"dojo-scoreboard-{state}.png"), full_page=True)
            return rows(page)

        # rank, user, score, reward_correct, stage_pass, submissions: no score is published before a reveal, and a
        # 0 there would read as "no points"
        hidden = ["at reveal", "at reveal"]
        assert show("open") == [["1", "ann", *hidden, "1", "1"], ["1", "bob", *hidden, "1", "1"]]
        dojo.freeze("fib")
        dojo.submit(bob, "fib", GOLF)  # practice, after the freeze: not on the board
        work(dojo, bubblewrap)
        assert show("frozen") == [["1", "ann", *hidden, "1", "1"], ["1", "bob", *hidden, "1", "1"]]
        frozen_at = dojo.problem("fib").freeze_started_at
        assert frozen_at and pages.when(frozen_at) in page.locator("#state-fib").inner_text()  # when it froze
        dojo.reveal("fib")
        final = show("revealed")
        assert [row[:2] + row[3:] for row in final] == [["1", "ann", "1", "1", "1"], ["2", "bob", "0", "1", "1"]]
        assert int(final[0][2]) > int(final[1][2]) > 0
        context.close()
