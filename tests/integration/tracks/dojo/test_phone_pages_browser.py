"""Every dojo page on a laptop (1366×768) and a phone (390×844) in Chromium: nothing scrolls sideways, the clock runs.

A trial found the problem page 680 px wide on a 390 px phone (hashes in ``<code>`` did not wrap, the text area was
80 columns) and ``/me`` 778 px. Here a season with a scheduled freeze and reveal, two judged submissions, a
question and an announcement is read as a contestant and as the jury, page by page, at both sizes: the page's
width must not pass the window's, and the countdown to the freeze must tick. Screenshots go to
``PODIUM_DOJO_SCREENSHOTS`` (docs/).
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner

from podium.core.clock import SystemClock
from podium.core.execution.sandbox import Sandbox
from podium.core.storage.sql import sqlite_url
from podium.tracks.dojo.clarifications import announce, ask
from podium.tracks.dojo.cli import dojo as dojo_cli
from podium.tracks.dojo.platform import Dojo
from podium.tracks.dojo.problem import load_problem
from podium.tracks.dojo.records import Role
from podium.tracks.dojo.store import open_store
from podium.tracks.dojo.worker import work
from tests.needs import need_module
from tests.tracks.dojo.serving import podium_serve
from tests.tracks.dojo.test_platform import GOLF

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.slow
CORPUS = Path(__file__).parents[3] / "tracks" / "dojo" / "corpus"  # tests/tracks/dojo/corpus
SCREENSHOTS = os.environ.get("PODIUM_DOJO_SCREENSHOTS")
SIZES = {"phone": (390, 844), "laptop": (1366, 768)}


def signed_in(browser: Browser, base: str, token: str, size: tuple[int, int]) -> Page:
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    context.set_default_timeout(20_000)
    page = context.new_page()
    page.goto(f"{base}/dojo/me")
    page.fill("input[name=token]", token)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/dojo/me")
    return page


def sideways(page: Page) -> int:
    """How many pixels the page is wider than the window (0: it fits)."""
    return int(page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))


@pytest.mark.parametrize("device", list(SIZES))
def test_every_page_fits_the_screen_and_the_clock_runs(
    browser: Browser, bubblewrap: Sandbox, tmp_path: Path, device: str
) -> None:
    need_module("fastapi", "web")
    url = sqlite_url(tmp_path / "dojo.sqlite3")
    dojo = Dojo(open_store(url), SystemClock(), lambda: bubblewrap)
    dojo.add_user("sam", Role.SETTER)
    ann, ann_token = dojo.add_user("ann", Role.SOLVER)
    bob, _ = dojo.add_user("bob", Role.SOLVER)
    ops, ops_token = dojo.add_user("ops", Role.OPERATOR)
    dojo.create_season("s1")
    now = datetime.now(UTC)
    dojo.add_problem("s1", "fib", "sam", load_problem(CORPUS / "problem"), freeze_at=now + timedelta(hours=2),
                     reveal_at=now + timedelta(hours=4))  # fmt: skip
    assert dojo.validate("fib").accepted
    dojo.open("fib")
    first = dojo.submit(ann, "fib", GOLF).submission_id
    dojo.submit(bob, "fib", GOLF)  # a byte copy: the jury's copies page lists it
    assert work(dojo, bubblewrap) == 2
    ask(dojo, ann, "Is a(0) the first term of the sequence shown on the problem page?", "fib")
    announce(dojo, ops, "The judge runs Python 3.11; submissions after the freeze are practice.")

    with podium_serve(url, tmp_path) as base:
        size = SIZES[device]
        contestant = signed_in(browser, base, ann_token, size)
        jury = signed_in(browser, base, ops_token, size)
        visits = [
            (contestant, "index", "/dojo/"),
            (contestant, "problem", "/dojo/problems/fib"),
            (contestant, "me", "/dojo/me"),
            (contestant, "my-submission", f"/dojo/me/submission?id={first}"),
            (contestant, "scoreboard", "/dojo/scoreboard/s1"),
            (jury, "operator", "/dojo/operator"),
            (jury, "operator-submission", f"/dojo/operator/submission?id={first}"),
            (jury, "operator-copies", "/dojo/operator/copies?problem=fib"),
        ]
        wide = {}
        for page, name, path in visits:
            page.goto(base + path)
            assert page.locator("h1").count() == 1, path
            wide[name] = sideways(page)
            if SCREENSHOTS:
                page.screenshot(path=str(Path(SCREENSHOTS) / f"dojo-{device}-{name}.png"), full_page=True)
        assert wide == dict.fromkeys(wide, 0), wide

        contestant.goto(f"{base}/dojo/problems/fib")
        clock = contestant.locator("time.countdown").first
        before = clock.inner_text()
        assert before.startswith(("in 1 h 59 min", "in 2 h 0 min")), before
        contestant.wait_for_timeout(1500)
        assert clock.inner_text() != before  # counted down by the page's script
        told = contestant.request.get(f"{base}/dojo/api/clock").json()  # the same clock for programs
        [fib] = told["problems"]
        assert fib["state"] == "OPEN" and fib["next"]["step"] == "freeze" and 7000 < fib["next"]["seconds_left"] <= 7200
        shown = CliRunner().invoke(dojo_cli, ["clock", "--db", url])
        assert shown.exit_code == 0 and "fib: OPEN, freeze in 1 h 5" in shown.output
        contestant.context.close()
        jury.context.close()
