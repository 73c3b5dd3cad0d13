"""Security: an annotator reaches only their own items, learns no team name, and bad input loses nothing.

The app is the one ``podium serve`` builds (``create_app`` with the wmeval track) over a real media store with
real videos; requests go through Starlette's test client, cookies and headers as a browser or script sends them.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from podium.core.errors import InputError
from podium.core.execution.executor import SerialExecutor
from podium.tracks.wmeval.annotate import queue
from podium.tracks.wmeval.assign import AssignOptions, assign, assignments
from podium.tracks.wmeval.cli import wmeval
from podium.tracks.wmeval.ingest import ingest_gt, ingest_team, media_root
from podium.tracks.wmeval.schema import scores, teams
from podium.tracks.wmeval.store import add_account, audit_entries
from podium.tracks.wmeval.track import TRACK
from podium.web.app import create_app
from tests.tracks.wmeval.conftest import Env, make_gt, make_team

TEAMS = ("crimson", "azure")
SAME_ORIGIN = {"origin": "http://testserver"}


@dataclass
class World:
    env: Env
    client: TestClient
    tokens: dict[str, str]
    ids: dict[str, int]

    def sign_in(self, name: str) -> None:
        """Sign the client in as ``name`` through the page's form (its session cookie is kept)."""
        self.client.cookies.clear()
        answer = self.client.post("/wmeval/signin", data={"token": self.tokens[name]}, follow_redirects=False)
        assert answer.status_code == 303, answer.text

    def as_(self, name: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[name]}"}

    def keys(self, name: str) -> list[str]:
        return [i.key for i in queue(self.env.engine, self.ids[name])]

    def stored(self) -> int:
        with self.env.engine.connect() as db:
            return int(db.execute(select(func.count()).select_from(scores)).scalar_one())


@pytest.fixture
def world(env: Env) -> Iterator[World]:
    root = media_root(env.engine, env.media)
    ingest_gt(env.engine, root, make_gt(env.tmp / "gt", {"task1": 2}), SerialExecutor(), env.clock, 48)
    for team in TEAMS:
        files = {"task1/episode_0.mp4": "h264", "task1/episode_1.mp4": "h264"}
        ingest_team(env.engine, root, team, make_team(env.tmp / team, files), SerialExecutor(), env.clock)
    tokens, ids = {}, {}
    for name, role in (("ann", "annotator"), ("eve", "annotator"), ("ops", "operator")):
        account, tokens[name] = add_account(env.engine, env.clock, name, role)
        ids[name] = account.id
    assign(env.engine, env.clock, AssignOptions(annotators_per_task=2, gold=1, seed=2))
    # a browser on the page: its form posts and scripts say they come from this origin
    with TestClient(create_app({"db": str(env.engine.url)}, {"wmeval": TRACK}), headers=SAME_ORIGIN) as client:
        yield World(env, client, tokens, ids)


def test_another_annotators_item_is_indistinguishable_from_a_missing_one(world: World) -> None:
    c = world.client
    theirs, made_up = world.keys("eve")[0], secrets.token_hex(8)
    for key in (theirs, made_up):
        for method, url, body in (
            ("GET", f"/wmeval/api/items/{key}", None),
            ("POST", f"/wmeval/api/items/{key}/score", {"score": 3}),
            ("GET", f"/wmeval/media/{key}/generated.mp4", None),
            ("GET", f"/wmeval/media/{key}/reference.png", None),
        ):
            answer = c.request(method, url, json=body, headers=world.as_("ann"))
            assert answer.status_code == 404, (method, url)
            assert answer.json() == {"error": f"no item '{key}'", "fix": "open your queue"}
    world.sign_in("ann")
    page = c.get(f"/wmeval/items/{theirs}")
    assert page.status_code == 404
    assert world.stored() == 0
    listed = {i["item"] for i in c.get("/wmeval/api/queue", headers=world.as_("ann")).json()}
    assert listed == set(world.keys("ann")) and not listed & set(world.keys("eve"))


def test_nothing_an_annotator_receives_names_a_team(world: World) -> None:
    c = world.client
    world.sign_in("ann")
    bodies = [c.get("/wmeval/queue").text, c.get("/wmeval/api/queue").text]
    for key in world.keys("ann"):
        bodies += [c.get(f"/wmeval/items/{key}").text, c.get(f"/wmeval/api/items/{key}").text]
        for name in ("generated.mp4", "reference.mp4", "generated.png", "reference.png"):
            answer = c.get(f"/wmeval/media/{key}/{name}")
            assert answer.status_code == 200
            bodies.append(answer.content.decode("latin-1"))
    for body in bodies:
        for team in TEAMS:
            assert team not in body
    assert "/teams/" not in "".join(bodies[:4])  # no media path leaks either


def test_media_answers_range_requests(world: World) -> None:
    key = world.keys("ann")[0]
    whole = world.client.get(f"/wmeval/media/{key}/generated.mp4", headers=world.as_("ann"))
    part = world.client.get(f"/wmeval/media/{key}/generated.mp4", headers=world.as_("ann") | {"Range": "bytes=0-99"})
    assert whole.headers["content-type"] == "video/mp4" and whole.headers["accept-ranges"] == "bytes"
    assert part.status_code == 206 and part.content == whole.content[:100]


@pytest.mark.parametrize(
    "name",
    ["..%2F..%2Fwmeval.sqlite3", "..%2Fteams", "%2Fetc%2Fpasswd", "generated.mp4%00.png", "original.mp4", "last.png",
     "cam_high.mp4", "..", "reference.mp4%2F..%2F..%2F..%2Fwmeval.sqlite3"],
)  # fmt: skip
def test_no_url_reaches_a_file_outside_the_item(world: World, name: str) -> None:
    key = world.keys("ann")[0]
    for url in (f"/wmeval/media/{key}/{name}", f"/wmeval/media/{name}/generated.mp4"):
        answer = world.client.get(url, headers=world.as_("ann"))
        assert answer.status_code == 404, url
        assert b"SQLite format" not in answer.content and b"root:" not in answer.content


def test_guessed_ids_find_nothing(world: World) -> None:
    c = world.client
    for guess in ("1", "2", "0", "-1", "ffffffffffffffff", "0000000000000000", world.keys("ann")[0].upper()):
        assert c.get(f"/wmeval/api/items/{guess}", headers=world.as_("ann")).status_code == 404
    assert c.get("/wmeval/api/queue").status_code == 401
    assert c.get("/wmeval/api/queue", headers={"Authorization": "Bearer nope"}).status_code == 401
    assert c.get(f"/wmeval/media/{world.keys('ann')[0]}/generated.mp4").status_code == 401


def test_a_header_that_is_not_a_bearer_token_is_not_passed_over_for_the_cookie(world: World) -> None:
    c = world.client
    world.sign_in("ann")
    assert c.get("/wmeval/api/queue").status_code == 200  # the page's own script: the cookie
    assert c.get("/wmeval/api/queue", headers={"Authorization": "Basic YW5uOng="}).status_code == 401


def test_operator_pages_do_not_exist_for_annotators(world: World) -> None:
    c = world.client
    world.sign_in("ann")
    assert c.get("/wmeval/operator").status_code == 404
    assert c.get("/wmeval/operator/report").status_code == 404
    assert c.get("/wmeval/api/operator/progress", headers=world.as_("ann")).status_code == 404
    answer = c.post("/wmeval/operator/reassign", data={"task": "task1", "episode": "episode_0", "annotator": "ann"})
    assert answer.status_code == 404
    world.sign_in("ops")
    dashboard = c.get("/wmeval/operator")
    assert dashboard.status_code == 200 and "Progress per team" in dashboard.text
    moved = c.post("/wmeval/operator/reassign", data={"task": "task1", "episode": "episode_0", "annotator": "eve"},
                   follow_redirects=False)  # fmt: skip
    assert moved.status_code == 303
    holders = {r.annotator for r in assignments(world.env.engine) if r.episode == "episode_0" and r.kind == "primary"}
    assert holders == {"eve"}
    assert "reassigned" in c.get("/wmeval/operator").text


def test_the_session_cookie_is_http_only_and_same_site(world: World) -> None:
    answer = world.client.post("/wmeval/signin", data={"token": world.tokens["ann"]}, follow_redirects=False)
    cookie = answer.headers["set-cookie"].lower()
    assert answer.status_code == 303 and "httponly" in cookie and "samesite=strict" in cookie
    assert world.tokens["ann"].lower() not in cookie  # a session id, never the permanent token
    assert world.client.post("/wmeval/signin", data={"token": "wrong"}).status_code == 401


@pytest.mark.parametrize(
    ("body", "status"),
    [({"score": 4}, 400), ({"score": -1}, 400), ({"score": "3"}, 422), ({"score": 2.0}, 422), ({}, 422),
     ({"score": 3, "team": "crimson"}, 422), ({"score": 3, "note": "x" * 2001}, 400),
     ({"score": 3, "note": "frozen\x00"}, 400),  # PostgreSQL stores no NUL in text: refused on every database
     ({"score": 3, "unplayable": True}, 422), ({"score": 3, "cant_judge": "video"}, 422),
     ({"cant_judge": "bored"}, 400), ({"cant_judge": 3}, 422)],
)  # fmt: skip
def test_malformed_scores_are_refused_clearly_and_change_nothing(world: World, body: object, status: int) -> None:
    key = world.keys("ann")[0]
    url = f"/wmeval/api/items/{key}/score"
    assert world.client.post(url, json={"score": 2}, headers=world.as_("ann")).json()["revision"] == 1
    answer = world.client.post(url, json=body, headers=world.as_("ann"))
    assert answer.status_code == status
    assert set(answer.json()) >= {"error", "fix"}  # one shape, 400 or 422
    assert world.client.get(f"/wmeval/api/items/{key}", headers=world.as_("ann")).json()["score"] == 2
    raw = world.client.post(url, content=b"score=3", headers=world.as_("ann") | {"Content-Type": "text/plain"})
    assert raw.status_code == 422


def test_bad_uploads_lose_nothing(world: World, tmp_path: Path) -> None:
    db = str(world.env.engine.url)
    mine = [r for r in assignments(world.env.engine) if r.annotator == "ann"]
    good = tmp_path / "good.csv"
    good.write_text("annotator,item,score\n" + "".join(f"ann,{r.item},1\n" for r in mine))
    run = CliRunner().invoke
    assert run(wmeval, ["import-scores", str(good), "--db", db]).exit_code == 0
    before = world.stored()
    bad = tmp_path / "bad.csv"
    bad.write_text("annotator,item,score\n" + "".join(f"ann,{r.item},3\n" for r in mine) + f"ann,{mine[0].item},9\n")
    latin = tmp_path / "latin.csv"
    latin.write_bytes("annotator,item,score,note\nann,x,1,caf\xe9\n".encode("latin-1"))
    for path, says in (
        (bad, f"line {len(mine) + 2}: item"),
        (latin, "not UTF-8"),
        (tmp_path / "absent.csv", "not found"),
    ):
        result = run(wmeval, ["import-scores", str(path), "--db", db])
        # podium's main() prints an InputError in one line and exits 2
        assert isinstance(result.exception, InputError) and result.exception.exit_code == 2
        assert says in result.exception.describe()
    assert world.stored() == before
    scored = {i["score"] for i in world.client.get("/wmeval/api/queue", headers=world.as_("ann")).json()}
    assert scored == {1}
    dup = make_team(tmp_path / "dup", {"task1/episode_0.mp4": "h264", "task1/episode_00.mp4": "h264"})
    result = run(wmeval, ["ingest-team", "dupes", str(dup), "--workers", "1", "--db", db])
    assert isinstance(result.exception, InputError) and "duplicate" in result.exception.message
    with world.env.engine.connect() as db_:
        assert "dupes" not in set(db_.execute(select(teams.c.name)).scalars())


def test_a_token_reset_or_a_disabled_account_ends_access_at_once(world: World) -> None:
    db, run, c = str(world.env.engine.url), CliRunner().invoke, world.client
    world.sign_in("ann")
    assert c.get("/wmeval/api/queue").status_code == 200
    reset = run(wmeval, ["annotator", "reset-token", "ann", "--db", db])
    assert reset.exit_code == 0 and "(1 session(s) ended)" in reset.output, reset.output
    old, world.tokens["ann"] = world.tokens["ann"], reset.output.split()[2]
    assert c.get("/wmeval/api/queue").status_code == 401  # the browser's session ended with the old token
    assert c.get("/wmeval/api/queue", headers={"Authorization": f"Bearer {old}"}).status_code == 401
    assert c.get("/wmeval/api/queue", headers=world.as_("ann")).status_code == 200

    world.sign_in("ann")
    disabled = run(wmeval, ["annotator", "disable", "ann", "--db", db])
    assert disabled.exit_code == 0 and "(1 session(s) ended)" in disabled.output
    assert c.get("/wmeval/api/queue").status_code == 401
    refused = c.get("/wmeval/api/queue", headers=world.as_("ann"))
    assert refused.status_code == 401 and refused.json()["error"] == "this account is disabled"
    assert c.post("/wmeval/signin", data={"token": world.tokens["ann"]}).status_code == 401
    listed = json.loads(run(wmeval, ["annotator", "list", "--format", "json", "--db", db]).output)
    assert {row["name"]: bool(row["disabled"]) for row in listed} == {"ann": True, "eve": False, "ops": False}
    assert run(wmeval, ["annotator", "enable", "ann", "--db", db]).exit_code == 0
    assert c.get("/wmeval/api/queue", headers=world.as_("ann")).status_code == 200
    with world.env.engine.connect() as connection:
        kinds = [e.kind for e in audit_entries(connection) if e.kind.startswith(("token", "user_d", "user_e"))]
    assert kinds == ["token_reset", "user_disabled", "user_enabled"]


def test_the_flagged_items_page_lists_can_t_judge_answers_and_notes_for_operators_only(world: World) -> None:
    c = world.client
    first, third = world.keys("ann")[:2]
    second = world.keys("eve")[0]
    for who, key, body in (
        ("ann", first, {"cant_judge": "reference", "note": "the reference is black <b>"}),
        ("eve", second, {"score": 2, "note": "arm jitters"}),
        ("ann", third, {"score": 3}),
    ):
        assert c.post(f"/wmeval/api/items/{key}/score", json=body, headers=world.as_(who)).status_code == 200
    world.sign_in("ann")
    assert c.get("/wmeval/operator/flagged").status_code == 404
    world.sign_in("ops")
    page = c.get("/wmeval/operator/flagged")
    assert page.status_code == 200 and "Flagged items and notes" in c.get("/wmeval/operator").text
    assert "1 can't-judge answer(s) waiting, 2 item(s) flagged or with a note" in page.text
    rows = page.text.split("<tr>")[2:]
    assert first in rows[0] and "the reference video is broken" in rows[0] and "waiting" in rows[0]
    assert "the reference is black &lt;b&gt;" in rows[0]  # escaped
    assert second in rows[1] and "arm jitters" in rows[1] and third not in page.text
