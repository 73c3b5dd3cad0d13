"""The dojo's pages in a real browser: problem list, problem page, submit form, my submissions, leaderboard.

A real ``podium serve`` on a temporary SQLite database holds one season with the Fibonacci problem of the judge
corpus, open. Headless Chromium (Debian's ``/usr/bin/chromium``, driven by Playwright) then does what a solver
does: opens the problem list, follows the link to the problem, reads the visible terms and the commitments, submits
a solver through the form with their token, and after a judge worker has run, sees the verdict under "My
submissions". After the operator's freeze and reveal, they follow the problem list's link to the season leaderboard
and find their row and score (1221, worked out by hand below), then the problem page's own leaderboard and the
revealed salt, setter and terms, which must match the commitments the page showed while the problem was open.
Every page must load without an HTTP error or a console error (the layout declares an empty icon, so no
``/favicon.ico`` request fails), and "My submissions" lets a browser without the cookie sign in.

Why a real browser: the pages are plain HTML whose links and form actions are relative (``problems/fib``,
``../submit/fib``, a redirect to ``../me``) and whose login is a cookie set on a redirect (HTTP-only,
SameSite=Strict). Only a browser resolves those URLs, encodes the form (a textarea is sent with CRLF line ends)
and keeps and sends the cookie the way a user's browser does; an HTTP client in a test would do all of that the
way the test's author believes it works.

Skips only where Chromium or the ``playwright`` package is missing and nobody required the browser:
``PODIUM_REQUIRE_BROWSER=1`` (set by ``make test``, which installs Chromium) or ``CI`` make that a failure.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urljoin

import pytest

from podium.core.clock import SystemClock
from podium.core.execution.sandbox import Sandbox
from podium.core.storage.sql import sqlite_url
from podium.tracks.dojo.platform import Dojo
from podium.tracks.dojo.problem import load_problem
from podium.tracks.dojo.records import Role
from podium.tracks.dojo.store import open_store
from podium.tracks.dojo.worker import work
from tests.needs import need_module
from tests.tracks.dojo.serving import podium_serve

if TYPE_CHECKING:
    from playwright.sync_api import Browser, ConsoleMessage, Locator, Page

# every test here needs the server and the browser started (about 5 s on a loaded 2-core machine)
pytestmark = pytest.mark.slow

CORPUS = Path(__file__).parents[3] / "tracks" / "dojo" / "corpus"  # tests/tracks/dojo/corpus
SEASON = "spring"
OTHER_SEASON, OPEN_PROBLEM = "summer", "fib-open"
# Reward Correct, 35 bytes: 1000 (reward_base) + floor(200·e^(−35/800)) = 191 (brevity) + 30 (first of its method
# tag, the only tag, so no shared bonus) = 1221 (docs/rules/dojo-scoring.md §4–§6 with the default rules).
ANN_SOLVER = "a,b=0,1\nwhile 1:print(a);a,b=b,a+b\n"
ANN_LENGTH, ANN_SCORE = 35, 1221
# Stage Pass only (the first 150 terms): stage_base = 200.
BOB_SOLVER = (CORPUS / "stage_only" / "first_150.py").read_bytes()
BOB_SCORE = 200
SCREENSHOTS = os.environ.get("PODIUM_DOJO_SCREENSHOTS")  # a folder: keep the page screenshots there (docs/)
MAX_PAGE_HEIGHT_PX = 2600  # the revealed problem page, with its 200 terms and setter in blocks a few lines high


@dataclass
class Site:
    """The running server and the operator's handle on its database."""

    base: str  # http://127.0.0.1:PORT/dojo
    dojo: Dojo
    tokens: dict[str, str]
    sandbox: Sandbox


@dataclass
class Tab:
    """A browser page that records every HTTP error, console error and uncaught exception it sees."""

    page: Page
    problems: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.problems.append(f"uncaught: {error}"))
        self.page.on(
            "response", lambda r: self.problems.append(f"HTTP {r.status} {r.url}") if r.status >= 400 else None
        )

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.problems.append(f"console {message.type}: {message.text} at {message.location.get('url', '')}")

    def text(self) -> str:
        return self.page.locator("body").inner_text()

    def heading(self) -> str:
        return self.page.locator("h1").inner_text()

    def after(self, heading: str, tag: str) -> Locator:
        """The first ``tag`` element after the ``<h2>`` whose text starts with ``heading``."""
        return self.page.locator("h2", has_text=re.compile(f"^{re.escape(heading)}")).locator(
            f"xpath=following-sibling::{tag}[1]"
        )

    def table(self, shown: Locator | None = None) -> list[dict[str, str]]:
        """An HTML table (the page's first by default), one dict per body row keyed by the header cells."""
        shown = shown or self.page.locator("table").first
        header = [cell.strip() for cell in shown.locator("thead th").all_inner_texts()]
        return [
            dict(zip(header, [cell.strip() for cell in row.locator("td").all_inner_texts()], strict=True))
            for row in shown.locator("tbody tr").all()
        ]

    def terms(self, element_id: str) -> list[str]:
        """The terms in a copyable block."""
        return (self.page.locator(f"#{element_id}").text_content() or "").split(", ")

    def height(self) -> int:
        """The page's whole height in CSS pixels."""
        return int(self.page.evaluate("document.documentElement.scrollHeight"))

    def shoot(self, name: str) -> None:
        """Keep a screenshot of the whole page as ``name`` under ``PODIUM_DOJO_SCREENSHOTS`` (docs/), if set."""
        if SCREENSHOTS:
            self.page.screenshot(path=str(Path(SCREENSHOTS) / name), full_page=True)


@pytest.fixture(scope="module")
def site(bubblewrap: Sandbox, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """A season with the open Fibonacci problem, solvers ann and bob, and `podium serve` on it."""
    need_module("fastapi", "web")  # podium serve
    folder = tmp_path_factory.mktemp("dojo-pages")
    url = sqlite_url(folder / "dojo.sqlite3")
    dojo = Dojo(open_store(url), SystemClock(), lambda: bubblewrap)
    dojo.add_user("sam", Role.SETTER)
    tokens = {name: dojo.add_user(name, Role.SOLVER)[1] for name in ("ann", "bob")}
    dojo.create_season(SEASON)
    dojo.add_problem(SEASON, "fib", "sam", load_problem(CORPUS / "problem"))
    assert dojo.validate("fib").accepted
    dojo.open("fib")
    # a second season whose problem stays open, for the tests of the submit form after fib is revealed
    dojo.create_season(OTHER_SEASON)
    dojo.add_problem(OTHER_SEASON, OPEN_PROBLEM, "sam", load_problem(CORPUS / "problem"))
    assert dojo.validate(OPEN_PROBLEM).accepted
    dojo.open(OPEN_PROBLEM)
    with podium_serve(url, folder) as base:
        yield Site(f"{base}/dojo", dojo, tokens, bubblewrap)


@pytest.fixture
def tab(browser: Browser, site: Site) -> Iterator[Tab]:
    """A fresh browser context (no cookies) with one page."""
    context = browser.new_context()
    context.set_default_timeout(30_000)
    try:
        yield Tab(context.new_page())
    finally:
        context.close()


def test_a_solver_submits_through_the_pages_and_finds_their_score(tab: Tab, site: Site) -> None:
    page, dojo = tab.page, site.dojo
    # bob submits meanwhile (through the platform, as the API does), so the leaderboards have a second row
    dojo.submit(dojo.user("bob"), "fib", BOB_SOLVER)

    # the server's front page leads to the dojo's problem list
    page.goto(site.base.removesuffix("/dojo") + "/")
    page.get_by_role("link", name="dojo", exact=True).click()
    page.wait_for_url(f"{site.base}/")
    # the problem list (typed without the final slash, against which its relative links would resolve wrongly)
    page.goto(site.base)
    assert page.url == f"{site.base}/" and tab.heading() == "Problems"
    row = page.locator("tr").filter(has=page.get_by_role("link", name="fib", exact=True))
    assert "Fibonacci" in row.inner_text() and "OPEN" in row.inner_text()
    page.get_by_role("link", name="fib", exact=True).click()
    page.wait_for_url(f"{site.base}/problems/fib")

    # the problem page: statement, the visible terms with their count as one copyable block, commitments and rules
    # in words, and nothing that is secret until reveal
    opened = dojo.problem("fib")
    assert tab.heading() == "Fibonacci (fib)"
    assert "F(0)=0, F(1)=1, F(n)=F(n-1)+F(n-2)" in tab.text()
    assert "Visible terms, from index 0 (10 terms)" in tab.text()
    assert tab.terms("visible-terms") == ["0", "1", "1", "2", "3", "5", "8", "13", "21", "34"]
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    tab.after("Visible terms", "div").get_by_role("button", name="Copy").click()
    page.get_by_role("button", name="Copied").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == "0, 1, 1, 2, 3, 5, 8, 13, 21, 34"
    commitments = tab.after("Commitments", "ul").inner_text()
    assert opened.setter_commit and opened.seq_commit
    assert f"setter commitment {opened.setter_commit} = SHA-256 of dojo-setter-v1" in commitments
    assert f"sequence commitment {opened.seq_commit} = SHA-256 of dojo-seq-v1" in commitments
    rules = tab.after("Rules", "ul").inner_text()
    assert "Stage Pass (200 points): the first 100 terms are right" in rules
    assert "Reward Correct (1000 points" in rules and "all 200 terms are right" in rules
    assert "Open: submissions count toward the leaderboard." in tab.text()
    assert page.locator("#salt, #all-terms, #setter").count() == 0
    assert page.get_by_role("heading", name="setter.py").count() == 0 and (opened.salt_hex or "?") not in page.content()
    tab.shoot("dojo-problem-open.png")

    # submit through the form with the token, as a user would type it
    page.get_by_label("API token").fill(site.tokens["ann"])
    page.get_by_placeholder("solver.py").fill(ANN_SOLVER)
    page.get_by_label("method tag").select_option("linear_recurrence")  # the six names of the rules, no free text
    page.get_by_role("button", name="Submit").click()
    page.wait_for_url(f"{site.base}/me")

    # my submissions (the page knows me from the cookie the form set): queued, no verdict yet
    assert tab.heading() == "Submissions of ann"
    [cookie] = page.context.cookies()
    assert (cookie["httpOnly"], cookie["sameSite"]) == (True, "Strict")
    assert cookie["value"] != site.tokens["ann"] and len(cookie["value"]) >= 43  # a session, not the token
    [queued] = tab.table()
    assert (queued["problem"], queued["status"], queued["verdict"]) == ("fib", "queued", "")

    assert work(dojo, site.sandbox) == 2  # the judge worker, until the queue is empty

    page.get_by_role("link", name="My submissions").click()
    page.wait_for_url(f"{site.base}/me")
    [judged] = tab.table()
    assert judged["id"] == queued["id"]
    # the browser sends the textarea with CRLF line ends; the judge measures the canonical (LF) text; while the problem
    # is open a solver learns the run verdict and its reason (from their own output); the score comes at reveal
    # (docs/rules/dojo-platform.md §2)
    assert judged == {
        "id": queued["id"], "problem": "fib", "submitted": judged["submitted"], "status": "judged", "verdict": "OK",
        "reason": "printed 200 terms", "L": str(ANN_LENGTH), "score": "at reveal", "practice": "no",
        "method tag": "linear_recurrence",
    }  # fmt: skip

    # before any reveal the season page says why its table is empty and when scores come
    page.goto(f"{site.base}/leaderboards/{SEASON}")
    assert "0 of 1 problems are revealed" in tab.text()
    assert "No problem of this season is revealed yet" in tab.text() and page.locator("table").count() == 0
    assert "fib (open): published at reveal" in tab.text()
    tab.shoot("dojo-season-before-reveal.png")

    # the operator freezes and reveals; the season leaderboard, linked from the problem list, then counts the problem
    dojo.freeze("fib")
    dojo.reveal("fib")
    page.get_by_role("link", name="Problems").click()
    page.wait_for_url(f"{site.base}/")
    tab.after("Season leaderboards", "p").get_by_role("link", name=SEASON, exact=True).click()
    page.wait_for_url(f"{site.base}/leaderboards/{SEASON}")
    assert tab.heading() == f"Season {SEASON}" and "1 of 1 problems are revealed" in tab.text()
    board = {row["user"]: row for row in tab.table()}
    assert set(board) == {"ann", "bob"}
    assert board["ann"] == {
        "rank": "1", "user": "ann", "score": str(ANN_SCORE), "stage_pass": "1", "reward_correct": "1",
        "median_L": str(ANN_LENGTH), "problems": "1",
    }  # fmt: skip
    assert (board["bob"]["rank"], board["bob"]["score"], board["bob"]["reward_correct"]) == ("2", str(BOB_SCORE), "0")
    tab.shoot("dojo-season.png")

    # after reveal: reason and score under my submissions
    page.get_by_role("link", name="My submissions").click()
    page.wait_for_url(f"{site.base}/me")
    [mine] = tab.table()
    assert (mine["verdict"], mine["score"], mine["practice"]) == ("OK", str(ANN_SCORE), "no")
    tab.shoot("dojo-me.png")

    # the problem page shows no form any more, but the problem's leaderboard and its method tags as tables, and
    # publishes salt, setter and terms, from which anyone checks the commitments it showed while it was open
    page.get_by_role("link", name="Problems").click()
    page.wait_for_url(f"{site.base}/")
    page.get_by_role("link", name="fib", exact=True).click()
    page.wait_for_url(f"{site.base}/problems/fib")
    assert "Revealed on" in tab.text() and "Submissions are closed" in tab.text()
    assert page.locator("form").count() == 0 and page.get_by_placeholder("solver.py").count() == 0
    problem_board = {row["user"]: row for row in tab.table(tab.after("Leaderboard", "table"))}
    assert {user: (row["rank"], row["score"]) for user, row in problem_board.items()} == {
        "ann": ("1", str(ANN_SCORE)), "bob": ("2", str(BOB_SCORE))
    }  # fmt: skip
    assert (problem_board["ann"]["L"], problem_board["ann"]["reward_correct"]) == (str(ANN_LENGTH), "yes")
    # the method tags of the Reward Correct submissions, published for auditing: ann's free-text tag stands
    tags = tab.table(tab.after("Method tags of Reward Correct submissions", "table"))
    assert tags == [{"method tag": "linear_recurrence", "claimed": "1", "counted": "1"}]
    salt = bytes.fromhex(page.locator("#salt").inner_text())
    setter = page.locator("#setter").text_content() or ""
    terms = tab.terms("all-terms")
    assert "All terms (200 terms)" in tab.text()
    assert terms[:10] == ["0", "1", "1", "2", "3", "5", "8", "13", "21", "34"] and len(terms) == 200
    assert hashlib.sha256(b"dojo-setter-v1\0" + salt + setter.encode()).hexdigest() == opened.setter_commit
    assert hashlib.sha256(b"dojo-seq-v1\0" + salt + ("\n".join(terms) + "\n").encode()).hexdigest() == opened.seq_commit
    # 200 terms in a block a few lines high, not a page thousands of pixels long
    assert tab.height() < MAX_PAGE_HEIGHT_PX, tab.height()
    tab.shoot("dojo-problem-revealed.png")

    assert tab.problems == []


def test_a_wrong_token_is_refused_with_a_message(tab: Tab, site: Site) -> None:
    before = len(site.dojo.submissions())
    tab.page.goto(f"{site.base}/problems/fib-open")
    tab.page.get_by_label("API token").fill("not-a-token")
    tab.page.get_by_placeholder("solver.py").fill(ANN_SOLVER)
    tab.page.get_by_role("button", name="Submit").click()
    tab.page.wait_for_url(f"{site.base}/submit/fib-open")
    assert "unknown or missing API token" in tab.text()
    assert len(site.dojo.submissions()) == before
    assert tab.page.context.cookies() == []


def test_my_submissions_lets_a_new_browser_sign_in(tab: Tab, site: Site) -> None:
    tab.page.goto(f"{site.base}/")
    tab.page.get_by_role("link", name="My submissions").click()
    tab.page.wait_for_url(f"{site.base}/me")
    tab.page.get_by_label("API token").fill("not-a-token")
    tab.page.get_by_role("button", name="Sign in").click()
    tab.page.wait_for_load_state()
    assert "unknown or missing API token" in tab.text() and tab.page.context.cookies() == []
    tab.page.get_by_label("API token").fill(site.tokens["bob"])
    tab.page.get_by_role("button", name="Sign in").click()
    tab.page.get_by_role("heading", name="Submissions of bob").wait_for()
    assert [c["name"] for c in tab.page.context.cookies()] == ["podium_dojo_token"]


def test_the_pages_have_an_icon(tab: Tab, site: Site) -> None:
    tab.page.goto(f"{site.base}/")
    declared = tab.page.locator("link[rel~=icon]")
    href = declared.first.get_attribute("href") if declared.count() else "/favicon.ico"
    if href and href.startswith("data:"):
        return
    icon = tab.page.request.get(urljoin(tab.page.url, href or "/favicon.ico"))
    assert icon.status == 200, f"the browser asks for {icon.url} and gets HTTP {icon.status}"
