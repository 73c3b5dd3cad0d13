"""End to end: real videos, ingest, assignment, an annotator's whole queue in Debian's Chromium, the leaderboard.

Videos are made at test time with PyAV: H.264 clips for the GT views and most submissions, an MPEG-4 Part 2 file
(what OpenCV's ``mp4v`` writes, which Chromium cannot play as submitted) and a corrupt file. The GT has task1 with
three episodes and task2 with two; three teams submit (their H.264 files and the ``mp4v`` one are all made anew in
the served profile, and all of them must play):

- ``short``: task1 episodes 0 and 1, task2 episode 0 (two videos missing);
- ``tidy``: everything, plus the ``concat_*`` visualisations the baseline writes (ignored);
- ``odd``: task1 episode 0 as ``mp4v``, episode 1 corrupt (unplayable: never shown, scores 0), the rest H.264.

Two annotators, one per task (``--annotators-per-task 1``): ``ann`` gets task1 and scores her whole queue in the
browser — keys on even items, mouse on odd ones, each only after both videos really played to the end — giving
``short`` 3, ``tidy`` 2, ``odd`` 1 except ``odd``'s episode 2, which she cannot judge (the video is broken:
the operator resolves it so, and it counts 0). ``bob``'s task2 scores
come in as a CSV import with the same per-team scores. By hand (denominators: the GT's 3 and 2 videos):

    task1: short (3+3+0)/3 = 2      tidy (2+2+2)/3 = 2    odd (1+0+0)/3 = 1/3
    task2: short (3+0)/2 = 3/2      tidy (2+2)/2 = 2      odd (1+1)/2 = 1
    final: short 7/4                tidy 2                odd 2/3          -> tidy, short, odd
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from podium.tracks.wmeval.assign import assignments
from podium.tracks.wmeval.store import open_store
from tests.tracks.wmeval.conftest import make_gt, make_team
from tests.tracks.wmeval.serving import SCREENSHOTS, cli, serve

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.slow

TEAMS = ("short", "tidy", "odd")
GIVEN = {"short": 3, "tidy": 2, "odd": 1}


@dataclass
class Site:
    base: str
    db: str
    tokens: dict[str, str]
    tmp: Path


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    tmp = tmp_path_factory.mktemp("wmeval-e2e")
    db = f"sqlite:///{tmp / 'w.sqlite3'}"
    gt = make_gt(tmp / "gt", {"task1": 3, "task2": 2})
    cli("ingest-gt", str(gt), "--height", "96", "--media", str(tmp / "media"), "--workers", "2", "--db", db)
    every = {f"task1/episode_{e}.mp4": "h264" for e in range(3)} | {f"task2/episode_{e}.mp4": "h264" for e in range(2)}
    submissions = {
        "short": {"task1/episode_0.mp4": "h264", "task1/episode_1.mp4": "h264", "task2/episode_0.mp4": "h264"},
        "tidy": every | {"task1/concat_episode_0.mp4": "h264", "task2/concat_episode_1.mp4": "h264"},
        "odd": every | {"task1/episode_0.mp4": "mp4v", "task1/episode_1.mp4": "corrupt"},
    }
    reports = {team: cli("ingest-team", team, str(make_team(tmp / team, files)), "--workers", "2", "--db", db)
               for team, files in submissions.items()}  # fmt: skip
    assert "missing: task1/episode_2" in reports["short"] and "missing: task2/episode_1" in reports["short"]
    assert reports["tidy"].count("ignored: ") == 2
    assert "odd: 5 video(s) stored, 4 playable" in reports["odd"] and "undecodable:" in reports["odd"]
    # every video is made anew in the served profile and must play below
    assert "4 playable (4 transcoded)" in reports["odd"] and "(5 transcoded)" in reports["tidy"]
    tokens = {}
    for name, role in (("ann", "annotator"), ("bob", "annotator"), ("ops", "operator")):
        tokens[name] = cli("annotator", "add", name, "--role", role, "--db", db).split()[-1]
    gold = make_team(tmp / "gold", {f"task{t}/episode_{e}.mp4": "h264" for t, e in ((1, 0), (1, 1), (2, 0), (2, 1))})
    (tmp / "gold.csv").write_text("task,episode,expected\n" + "".join(
        f"task{t},episode_{e},3\n" for t, e in ((1, 0), (1, 1), (2, 0), (2, 1))))  # fmt: skip
    cli("gold-import", str(gold), "--answers", str(tmp / "gold.csv"), "--workers", "2", "--db", db)
    cli("assign", "--annotators-per-task", "1", "--seed", "11", "--gold", "1", "--db", db)
    with serve(db) as base:
        yield Site(f"{base}/wmeval", db, tokens, tmp)


def sign_in(browser: Browser, site: Site, name: str) -> tuple[Page, list[str]]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(20_000)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"uncaught: {error}"))
    page.on("console", lambda m: problems.append(f"console: {m.text}") if m.type == "error" else None)
    page.on("response", lambda r: problems.append(f"HTTP {r.status} {r.url}") if r.status >= 400 else None)
    page.goto(site.base + "/")
    page.fill("input[name=token]", site.tokens[name])
    page.click("button[type=submit]")
    return page, problems


def played(page: Page, video: str) -> dict[str, object]:
    return page.evaluate(  # type: ignore[no-any-return]
        "id => { const v = document.getElementById(id); return {ended: v.ended, time: v.currentTime,"
        " width: v.videoWidth, state: v.readyState, error: v.error && v.error.code, duration: v.duration}; }",
        video,
    )


def test_an_annotator_scores_her_whole_queue_and_the_leaderboard_is_the_hand_computed_one(
    browser: Browser, site: Site
) -> None:
    plan = {r.item: r for r in assignments(open_store(site.db))}
    page, problems = sign_in(browser, site, "ann")
    assert page.url == f"{site.base}/queue"
    mine = [r for r in plan.values() if r.annotator == "ann"]
    assert len(mine) == 8  # task1: short 2 + tidy 3 + odd 2 (episode 1 is unplayable, never shown) + 1 gold
    assert page.locator("#progress").inner_text() == "0 of 8 answered"
    page.click("#next")
    for index in range(len(mine)):
        page.wait_for_url(f"{site.base}/items/*")
        page.wait_for_selector("#item[data-script=ready]")  # the page's script answers the controls from here
        key = page.url.rsplit("/", 1)[1]
        row = plan[key]
        text = page.locator("body").inner_text()
        assert not any(team in text for team in TEAMS) and row.annotator == "ann"
        assert page.locator("button.score").first.is_disabled()  # not before both videos were watched
        page.click("#start-both")
        page.wait_for_selector("#item[data-ready=yes]")
        for video in ("generated", "reference"):
            state = played(page, video)
            assert state["error"] is None and int(state["width"]) > 0, state  # type: ignore[call-overload]
            assert state["ended"] or float(state["time"]) > 0, state  # type: ignore[arg-type]
        for image in ("generated-last", "reference-last"):
            assert page.evaluate(f"document.getElementById('{image}').naturalWidth") > 0
        if row.team == "odd" and row.episode == "episode_2":
            page.fill("#note", "frozen after a second")
            page.select_option("#cant-judge", "video")
            page.click("#submit-cant-judge")
        else:
            score = 3 if row.kind == "gold" else GIVEN[row.team]
            if index % 2 == 0:
                page.keyboard.press(str(score))
            else:
                page.click(f"button.score[data-score='{score}']")
        page.wait_for_url(lambda url, key=key: not url.endswith(key))  # type: ignore[misc]
    assert page.url == f"{site.base}/queue"
    assert page.locator("#progress").inner_text() == "8 of 8 answered"
    assert problems == []

    bob = [r for r in plan.values() if r.annotator == "bob"]
    lines = ["annotator,item,score,note"] + [f"bob,{r.item},{3 if r.kind == 'gold' else GIVEN[r.team]}," for r in bob]
    (site.tmp / "bob.csv").write_text("\n".join(lines) + "\n")
    assert f"{len(bob)} answer(s) applied, 0 unchanged" in cli(
        "import-scores", str(site.tmp / "bob.csv"), "--db", site.db
    )

    waiting = json.loads(cli("cant-judge", "--format", "json", "--db", site.db))
    assert [(w["team"], w["episode"], w["why"], w["note"]) for w in waiting] == [
        ("odd", "episode_2", "video", "frozen after a second")
    ]
    assert "broken, counts 0" in cli("resolve", waiting[0]["item"], "--broken", "--db", site.db)
    board = json.loads(cli("scores", "--format", "json", "--db", site.db))
    firm = [team.pop("ratings_to_tie_next") for team in board["teams"]]  # firmness.py's own tests check the count
    assert firm[0] == 1 and firm[1] >= 1 and firm[2] is None  # tidy is 1/4 above short: one rating would tie them
    assert board == {
        "teams": [
            {"team": "tidy", "rank": 1, "final": "2", "tasks": {"task1": "2", "task2": "2"}},
            {"team": "short", "rank": 2, "final": "7/4", "tasks": {"task1": "2", "task2": "3/2"}},
            {"team": "odd", "rank": 3, "final": "2/3", "tasks": {"task1": "1/3", "task2": "1"}},
        ]
    }


def test_the_operator_dashboard_shows_progress_issues_and_the_audit_trail(browser: Browser, site: Site) -> None:
    page, problems = sign_in(browser, site, "ops")
    assert page.url == f"{site.base}/operator"
    text = page.locator("body").inner_text()
    assert "Progress per annotator" in text and "Progress per team" in text
    assert "undecodable" in text and "concat_episode_0.mp4" in text
    assert "assigned" in text and "user_added" in text
    if SCREENSHOTS:
        page.screenshot(path=str(Path(SCREENSHOTS) / "wmeval-dashboard.png"), full_page=True)
    page.click("text=Flagged items and notes")
    flagged = page.locator("body").inner_text()
    assert "can't-judge answer(s) waiting" in flagged and "item(s) flagged or with a note" in flagged
    if SCREENSHOTS:
        page.set_viewport_size({"width": 1366, "height": 768})
        page.screenshot(path=str(Path(SCREENSHOTS) / "wmeval-flagged.png"), full_page=True)
    page.go_back()
    page.click("text=Scores and statistics report")
    assert "Krippendorff" in page.locator("body").inner_text()
    assert problems == []
