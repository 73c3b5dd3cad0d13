"""Every JSON answer of the dojo API has JSON's own types: booleans for gates and flags, numbers for counts.

One season with one problem that a solver solves, judged by the real worker, then frozen and revealed; every
endpoint is then read through FastAPI's test client over the real app. A client must be able to write
``if row["stage_pass"]`` and ``row["median_L"] < 100``: the strings ``"yes"`` or ``"60"`` would make the first
always true and the second an error. The server's front page (``/``) leads to the dojo.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.needs import need_module

need_module("fastapi", "web")
from fastapi.testclient import TestClient  # after the check above: the web extra is optional

from podium.core.clock import SystemClock
from podium.core.execution.sandbox import Sandbox
from podium.core.ranking.leaderboard import Ranked
from podium.core.storage.sql import sqlite_url
from podium.tracks.dojo.platform import Dojo
from podium.tracks.dojo.problem import ProblemFiles
from podium.tracks.dojo.records import Role
from podium.tracks.dojo.standings import SeasonRow, season_records
from podium.tracks.dojo.store import open_store
from podium.tracks.dojo.worker import work
from podium.web.app import create_app

SQUARES = "n=0\nwhile 1:print(n*n);n+=1\n"


@pytest.fixture(scope="module")
def answers(bubblewrap: Sandbox, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Every JSON endpoint's answer once ann's solver of 'squares' is judged and the problem revealed."""
    url = sqlite_url(tmp_path_factory.mktemp("dojo-types") / "dojo.sqlite3")
    dojo = Dojo(open_store(url), SystemClock(), lambda: bubblewrap)
    dojo.add_user("sam", Role.SETTER)
    _, token = dojo.add_user("ann", Role.SOLVER)
    dojo.create_season("s1")
    dojo.add_problem("s1", "squares", "sam", ProblemFiles(Path("squares"), SQUARES.encode(), "Squares", "", 0, 10))
    assert dojo.validate("squares").accepted
    dojo.open("squares")
    me = {"Authorization": f"Bearer {token}"}
    with TestClient(create_app({"db": url}), base_url="http://testserver") as client:
        receipt = client.post("/dojo/api/problems/squares/submissions", json={"source": SQUARES}, headers=me)
        assert receipt.status_code == 202, receipt.text
        assert work(dojo, bubblewrap) == 1
        dojo.freeze("squares")
        dojo.reveal("squares")
        paths = {
            "receipt": None,
            "problems": "/dojo/api/problems",
            "problem": "/dojo/api/problems/squares",
            "mine": "/dojo/api/me/submissions",
            "submission": f"/dojo/api/submissions/{receipt.json()['id']}",
            "leaderboard": "/dojo/api/problems/squares/leaderboard",
            "tags": "/dojo/api/problems/squares/tags",
            "season": "/dojo/api/seasons/s1/leaderboard",
            "audit": "/dojo/api/audit/head",
        }
        shown: dict[str, Any] = {"receipt": receipt.json()}
        for name, path in paths.items():
            if path:
                answer = client.get(path, headers=me)
                assert answer.status_code == 200, (path, answer.text)
                shown[name] = answer.json()
        front = client.get("/")
        assert front.status_code == 200
        shown["front"] = front.text
        yield shown


def test_gates_and_flags_are_booleans_and_counts_numbers(answers: dict[str, Any]) -> None:
    length = len(SQUARES)
    assert (answers["receipt"]["length"], answers["receipt"]["practice"]) == (length, False)
    [problem] = answers["problems"]
    assert problem == answers["problem"]
    assert problem["offset"] == 0 and problem["visible_terms"][:3] == ["0", "1", "4"] and len(problem["terms"]) == 200
    [mine] = answers["mine"]
    assert mine == answers["submission"]
    assert (mine["stage_pass"], mine["reward_correct"], mine["practice"], mine["length"]) == (True, True, False, length)
    [row] = answers["leaderboard"]
    assert row | {"submitted_at": "", "score": 0} == {
        "rank": 1, "user": "ann", "score": 0, "L": length, "stage_pass": True, "reward_correct": True,
        "submission": mine["id"], "submitted_at": "",
    }  # fmt: skip
    assert isinstance(row["score"], int) and row["score"] > 1000
    assert answers["tags"] == {"claimed": {"unspecified": 1}, "counted": {"unspecified": 1}, "overridden": []}
    assert answers["season"] == [
        {"rank": 1, "user": "ann", "score": row["score"], "stage_pass": 1, "reward_correct": 1, "median_L": length,
         "problems": 1}
    ]  # fmt: skip
    assert isinstance(answers["audit"]["head"], str)


def test_a_median_between_two_lengths_is_a_float_and_none_is_null() -> None:
    rows = [Ranked(1, SeasonRow("ann", 2400, 2, 2, 60.5, 2)), Ranked(2, SeasonRow("bob", 200, 1, 0, None, 1))]
    assert [r["median_L"] for r in season_records(rows)] == [60.5, None]


def test_the_front_page_leads_to_the_dojo(answers: dict[str, Any]) -> None:
    assert "<a href='/dojo/'>dojo</a>" in answers["front"]
