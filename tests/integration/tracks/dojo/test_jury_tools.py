"""The jury's tools and runs that explain themselves, on SQLite and a real PostgreSQL.

A season trial found that nobody could see why a run failed (operators saw verdict, L and attempts; contestants
only the verdict while open), that a byte-identical copy of another user's solver ranked 4th unseen, and that
operators needed the command line and the database URL for everything but users. Here five solvers submit
what a real season gets — a short solution, its second version, a byte copy, a renamed copy, a near copy, a
policy break, a format error and an empty file — and every tool is used through the API, the pages and the CLI.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from sqlalchemy import update

from podium.core.clock import SystemClock
from podium.core.execution.sandbox import Sandbox
from podium.core.storage.sql import sqlite_url
from podium.tracks.dojo.cli import dojo as dojo_cli
from podium.tracks.dojo.platform import Dojo
from podium.tracks.dojo.problem import load_problem
from podium.tracks.dojo.records import Role
from podium.tracks.dojo.schema import submissions
from podium.tracks.dojo.store import audit_entries, open_store
from podium.tracks.dojo.worker import work_in_threads
from podium.web.app import create_app
from tests.databases import new_postgres_database

CORPUS = Path(__file__).parents[3] / "tracks" / "dojo" / "corpus"  # tests/tracks/dojo/corpus
GOLF = (CORPUS / "accepted" / "golf_endless.py").read_bytes()
MATRIX = (CORPUS / "accepted" / "matrix_power.py").read_bytes()
SENT = {  # name: (user, source)
    "golf": ("ann", GOLF),
    "golf_again": ("ann", GOLF.rstrip(b"\n") + b"  # the same, commented\n"),
    "byte_copy": ("bob", GOLF),
    "renamed": ("cat", GOLF.replace(b"a", b"x").replace(b"b", b"y")),
    "matrix": ("ann", MATRIX),
    "near": ("dan", MATRIX.replace(b"range(200)", b"range(0, 200)")),
    "policy": ("bob", b"print(open('/etc/passwd').read())\n"),
    "format": ("cat", b"print('one')\n"),
}


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return sqlite_url(tmp_path / "dojo.sqlite3")
    return new_postgres_database(request.getfixturevalue("postgres_url"), "dojo_jury")


@pytest.fixture
def season(url: str, bubblewrap: Sandbox) -> tuple[Dojo, dict[str, str], dict[str, int]]:
    dojo = Dojo(open_store(url), SystemClock(), lambda: bubblewrap)
    dojo.add_user("sam", Role.SETTER)
    tokens = {name: dojo.add_user(name, Role.SOLVER)[1] for name in ("ann", "bob", "cat", "dan")}
    tokens["ops"] = dojo.add_user("ops", Role.OPERATOR)[1]
    dojo.create_season("s1")
    dojo.add_problem("s1", "fib", "sam", load_problem(CORPUS / "problem"))
    assert dojo.validate("fib").accepted
    dojo.open("fib")
    ids = {name: dojo.submit(dojo.user(who), "fib", source).submission_id for name, (who, source) in SENT.items()}
    assert work_in_threads(dojo, bubblewrap, 2) == len(SENT)
    return dojo, tokens, ids


def bearer(tokens: dict[str, str], name: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {tokens[name]}"}


def test_the_jury_sees_everything_and_authors_their_reasons(season: tuple[Dojo, dict[str, str], dict[str, int]],
                                                           url: str) -> None:  # fmt: skip
    dojo, tokens, ids = season
    with TestClient(create_app({"db": url}), base_url="http://testserver/dojo") as client:
        # -- authors, while open: the verdict's reason, never Reward Correct or stderr
        for who in ("bob", "cat"):
            mine = {row["id"]: row for row in client.get("/api/me/submissions", headers=bearer(tokens, who)).json()}
            for row in mine.values():
                assert row["reason"] and "reward_correct" not in row and "stderr" not in row, row
        bob = {r["id"]: r for r in client.get("/api/me/submissions", headers=bearer(tokens, "bob")).json()}
        assert bob[ids["policy"]]["verdict"] == "POLICY_REJECT" and "open" in bob[ids["policy"]]["reason"]
        cat = {r["id"]: r for r in client.get("/api/me/submissions", headers=bearer(tokens, "cat")).json()}
        assert cat[ids["format"]]["verdict"] == "FORMAT_ERROR"
        empty = client.post("/api/problems/fib/submissions", json={"source": " \n\t\n"}, headers=bearer(tokens, "cat"))
        assert empty.status_code == 400 and "empty or only whitespace" in empty.json()["error"]

        # -- nobody but operators reaches the jury's routes
        for path in (f"/api/operator/submissions/{ids['golf']}", "/api/operator/problems/fib/copies",
                     "/api/operator/audit", "/api/operator/queue"):  # fmt: skip
            refused = client.get(path, headers=bearer(tokens, "ann"))
            assert refused.status_code == 403 and refused.json()["error"] == "only operators may do this", path
        ops = bearer(tokens, "ops")

        # -- the OpenAPI document describes the jury's routes and the one error shape
        described = client.get("http://testserver/openapi.json").json()
        jury_route = described["paths"]["/dojo/api/operator/submissions/{submission_id}"]["get"]
        assert jury_route["description"].startswith("One submission whole")
        assert set(described["components"]["schemas"]["HTTPValidationError"]["required"]) == {"error", "fix", "fields"}

        # -- one submission whole
        detail = client.get(f"/api/operator/submissions/{ids['golf_again']}", headers=ops).json()
        assert detail["source"].endswith("# the same, commented\n") and detail["user"] == "ann"
        assert detail["previous"]["id"] == ids["golf"] and "+" in detail["previous"]["diff"]
        assert "# the same, commented" in detail["previous"]["diff"]
        assert detail["run"]["wall_time_s"] > 0 and detail["run"]["peak_memory_mib"] is not None
        assert detail["verdict"] == "OK" and detail["reward_correct"] is True and "stderr" in detail
        assert {e["kind"] for e in detail["audit"]} >= {"submission", "judged"}
        first = client.get(f"/api/operator/submissions/{ids['golf']}", headers=ops).json()
        assert first["previous"] is None
        assert first["same_hash_other_users"] == [{"id": ids["byte_copy"], "user": "bob"}]

        # -- copies across users
        found = client.get("/api/operator/problems/fib/copies", headers=ops).json()
        same = [{s["id"] for s in g["submissions"]} for g in found["same_source"]]
        assert same == [{ids["golf"], ids["byte_copy"]}]
        normalised = [{s["id"] for s in g["submissions"]} for g in found["same_normalised"]]
        assert {ids["golf"], ids["byte_copy"], ids["renamed"], ids["golf_again"]} in normalised
        assert [(p["a"]["id"], p["b"]["id"]) for p in found["near"]] == [(ids["matrix"], ids["near"])]

        # -- lists, a page at a time, and the queue
        page = client.get("/api/operator/submissions?limit=3&offset=2", headers=ops)
        assert (
            page.headers["x-total-count"] == str(len(SENT))
            and [r["id"] for r in page.json()] == sorted(ids.values())[2:5]
        )
        assert client.get("/api/operator/queue", headers=ops).json() == []

        # -- a rejudge preview judges again and stores nothing; a row judged otherwise before shows up
        with dojo.engine.begin() as db:
            older = update(submissions).where(submissions.c.id == ids["near"])  # as an older judge had it
            db.execute(older.values(verdict="TIME_LIMIT", reward_correct=False))
        preview = client.post("/api/operator/problems/fib/rejudge", json={"preview": True}, headers=ops).json()
        assert preview["judged_again"] == len(SENT)
        assert [(c["id"], c["stored"]["verdict"], c["now"]["verdict"]) for c in preview["would_change"]] == [
            (ids["near"], "TIME_LIMIT", "OK")
        ]
        assert dojo.submission(ids["near"]).verdict == "TIME_LIMIT"  # nothing stored

        # -- exports
        tsv = client.get("/api/operator/seasons/s1/results?format=tsv", headers=ops)
        rows = list(csv.DictReader(io.StringIO(tsv.text), delimiter="\t"))
        assert tsv.headers["content-type"].startswith("text/tab-separated-values") and len(rows) == len(SENT)
        assert {r["reward_correct"] for r in rows} <= {"yes", "no", ""} and rows[0]["user"] == "ann"
        assert len(client.get("/api/operator/seasons/s1/results", headers=ops).json()) == len(SENT)
        audit = client.get("/api/operator/audit", headers=ops).json()
        assert [e["prev_hash"] for e in audit[1:]] == [e["entry_hash"] for e in audit[:-1]]  # one unbroken chain

        # -- a disable history that survives the enable
        client.post("/api/users/dan/disable", json={"reason": "near copy of #" + str(ids["matrix"])}, headers=ops)
        client.post("/api/users/dan/enable", headers=ops)
        dan = next(u for u in client.get("/api/users", headers=ops).json() if u["name"] == "dan")
        assert dan["disabled"] is None and [e["event"] for e in dan["history"]] == ["disabled", "enabled"]
        assert dan["history"][0]["reason"].startswith("near copy")

        # -- statistics: while open, what the public board shows; Reward Correct at reveal; the jury sees all
        public = client.get("/api/problems/fib/stats").json()
        assert (public["submissions"], public["users"], public["stage_pass_users"]) == (len(SENT), 4, 4)
        assert public["first_stage_pass"]["user"] == "ann" and "reward_correct_users" not in public
        jury_stats = client.get("/api/operator/problems/fib/stats", headers=ops).json()
        assert jury_stats["reward_correct_users"] == 3 and jury_stats["verdicts"]["POLICY_REJECT"] == 1
        assert "Reward Correct and the first solve are published at reveal" in client.get("/problems/fib").text

        # -- the lifecycle over HTTP; after reveal the author learns Reward Correct and the stderr
        assert client.post("/api/operator/problems/fib/freeze", headers=ops).json()["state"] == "FROZEN"
        assert client.post("/api/operator/problems/fib/reveal", headers=ops).json()["state"] == "REVEALED"
        revealed = client.get("/api/problems/fib/stats").json()
        assert revealed["reward_correct_users"] == 3 and revealed["first_solve"]["user"] == "ann"
        assert revealed["shortest_L"] == len(GOLF) + 1  # canonical: a final newline added
        mine = client.get(f"/api/submissions/{ids['golf']}", headers=bearer(tokens, "ann")).json()
        assert mine["reward_correct"] is True and mine["stderr"] == ""

    # -- the same from the command line
    def cli(*args: str) -> str:
        result = CliRunner().invoke(dojo_cli, [*args, "--db", url], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    shown = json.loads(cli("submission", str(ids["golf_again"]), "--format", "json"))
    assert shown["previous"]["id"] == ids["golf"]
    assert "--- changes since" in cli("submission", str(ids["golf_again"]))
    assert f"#{ids['byte_copy']} bob" in cli("copies", "fib")
    assert cli("export", "results", "s1").startswith("id\tproblem\tuser")
    assert "near copy" in cli("user", "history", "dan")
    assert len(json.loads(cli("export", "audit"))) >= len(audit)


def test_the_jury_pages_are_the_operators_alone(season: tuple[Dojo, dict[str, str], dict[str, int]],
                                               url: str) -> None:  # fmt: skip
    _, tokens, ids = season
    with TestClient(create_app({"db": url}), base_url="http://testserver/dojo",
                    headers={"origin": "http://testserver"}) as client:  # fmt: skip
        assert client.post("/me", data={"token": tokens["ann"]}).status_code == 200
        assert client.get(f"/operator/submission?id={ids['golf']}").status_code == 404
        own = client.get(f"/me/submission?id={ids['golf_again']}").text
        assert "# the same, commented" in own and "printed 200 terms" in own and "published at reveal" in own
        assert client.get(f"/me/submission?id={ids['byte_copy']}").status_code == 404  # bob's
        assert f"me/submission?id={ids['golf']}" in client.get("/me").text
        paged = client.get("/api/me/submissions?limit=1", headers=bearer(tokens, "ann"))
        assert len(paged.json()) == 1 and paged.headers["x-total-count"] == "3"
        assert client.get("/operator/copies?problem=fib").status_code == 404
        client.post("/signout")
        client.post("/me", data={"token": tokens["ops"]})
        page = client.get(f"/operator/submission?id={ids['golf_again']}")
        assert page.status_code == 200 and "Changes since #" in page.text and "commented" in page.text
        assert "The same source was sent by other users" in client.get(f"/operator/submission?id={ids['golf']}").text
        copies = client.get("/operator/copies?problem=fib").text
        assert "bob" in copies and "0.94" in copies
        assert client.get("/operator/export/results?season=s1").text.startswith("id\tproblem")
        assert client.get("/operator").text.count("<form") >= 4


def test_questions_answers_and_announcements_reach_whom_they_should(
    season: tuple[Dojo, dict[str, str], dict[str, int]], url: str
) -> None:
    dojo, tokens, _ = season
    with TestClient(create_app({"db": url}), base_url="http://testserver/dojo",
                    headers={"origin": "http://testserver"}) as client:  # fmt: skip
        ann, bob, cat, dan, ops = (bearer(tokens, n) for n in ("ann", "bob", "cat", "dan", "ops"))
        asked = client.post("/api/clarifications", json={"text": "Is a(0) the first term?", "problem": "fib"},
                            headers=ann)  # fmt: skip
        assert asked.status_code == 201 and asked.json()["kind"] == "question"
        assert client.get("/api/clarifications", headers=bob).json() == []  # a question is the asker's and the jury's
        waiting = client.get("/api/operator/clarifications?unanswered=true", headers=ops).json()
        assert [m["text"] for m in waiting] == ["Is a(0) the first term?"]

        # to the asker alone, then a question answered to everyone (which publishes it)
        private = client.post(f"/api/operator/clarifications/{asked.json()['id']}/answer",
                              json={"text": "Yes: offset 0."}, headers=ops)  # fmt: skip
        assert private.status_code == 201 and private.json()["to"] == "ann"
        theirs = client.post("/api/clarifications", json={"text": "May I print more than 200 terms?"}, headers=cat)
        client.post(f"/api/operator/clarifications/{theirs.json()['id']}/answer",
                    json={"text": "Yes, only the first 200 are read.", "to_all": True}, headers=ops)  # fmt: skip
        client.post("/api/operator/announcements", json={"text": "The judge runs Python 3.11.", "problem": "fib"},
                    headers=ops)  # fmt: skip
        client.post("/api/operator/announcements", json={"text": "Your near copy is under review.", "to": "dan"},
                    headers=ops)  # fmt: skip
        seen = {n: [m["text"] for m in client.get("/api/clarifications", headers=h).json()]
                for n, h in (("ann", ann), ("bob", bob), ("dan", dan))}  # fmt: skip
        public = ["Yes, only the first 200 are read.", "The judge runs Python 3.11."]
        assert seen["ann"] == ["Is a(0) the first term?", "Yes: offset 0.", *public]
        assert seen["bob"] == public and seen["dan"] == [*public, "Your near copy is under review."]
        shown = {m["text"]: m for m in client.get("/api/clarifications", headers=bob).json()}
        assert shown["Yes, only the first 200 are read."]["question"] == "May I print more than 200 terms?"
        problem_page = client.get("/problems/fib").text
        assert "The judge runs Python 3.11." in problem_page and "Your near copy" not in problem_page
        assert "May I print more than 200 terms?" in problem_page and "Is a(0)" not in problem_page

        # who may do what, and bad input
        assert client.post("/api/operator/announcements", json={"text": "x"}, headers=bob).status_code == 403
        assert client.post("/api/clarifications", json={"text": "x"}, headers=ops).status_code == 403
        assert client.post("/api/clarifications", json={"text": "  "}, headers=bob).status_code == 400
        for n in range(5):
            assert client.post("/api/clarifications", json={"text": f"q{n}"}, headers=bob).status_code == 201
        flood = client.post("/api/clarifications", json={"text": "q5"}, headers=bob)
        assert flood.status_code == 429 and "not answered yet" in flood.json()["error"]

        # the pages: the author's messages with a form to ask; the jury's questions with forms to answer
        client.post("/me", data={"token": tokens["ann"]})
        mine = client.get("/me").text
        assert "id='messages'" in mine and "Yes: offset 0." in mine and "action='clarifications'" in mine
        client.post("/clarifications", data={"text": "Asked from the page", "problem": ""})
        client.post("/signout")
        client.post("/me", data={"token": tokens["ops"]})
        desk = client.get("/operator").text
        assert "Questions waiting (6)" in desk and "Asked from the page" in desk
        waiting_now = client.get("/api/operator/clarifications?unanswered=true", headers=ops).json()
        page_question = next(m for m in waiting_now if m["text"] == "Asked from the page")
        client.post("/operator/answer", data={"question": str(page_question["id"]), "text": "Answered on the page"})
        assert "Questions waiting (5)" in client.get("/operator").text

    with dojo.engine.connect() as db:
        kinds = [e.kind for e in audit_entries(db, ("asked", "answered", "announced"))]
    assert kinds.count("asked") == 8 and kinds.count("answered") == 3 and kinds.count("announced") == 2

    result = CliRunner().invoke(dojo_cli, ["clarifications", "--unanswered", "--db", url], catch_exceptions=False)
    assert result.exit_code == 0 and result.output.count("(waiting)") == 5
    said = CliRunner().invoke(dojo_cli, ["announce", "--text", "Ten minutes left.", "--as", "ops", "--db", url])
    assert said.exit_code == 0 and "to everyone" in said.output
