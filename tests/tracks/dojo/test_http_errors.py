"""The dojo API's answers to callers it must refuse: 401 unknown, 403 not allowed, 404 unknown or hidden, 422.

In process (FastAPI's test client over the real app and a real SQLite file): what matters here is the status and
that a hidden thing (a draft problem, another user's submission) is answered word for word like a missing one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from podium.core.clock import SystemClock
from podium.core.execution.sandbox import Sandbox
from podium.core.storage.sql import sqlite_url
from podium.tracks.dojo.platform import Dojo
from podium.tracks.dojo.problem import ProblemFiles
from podium.tracks.dojo.records import Role
from podium.tracks.dojo.store import open_store
from podium.web.app import create_app

SQUARES = b"n=0\nwhile 1:print(n*n);n+=1\n"
SOLVER = {"source": "n=0\nwhile 1:print(n*n);n+=1\n"}


@dataclass
class Api:
    client: TestClient
    tokens: dict[str, str]

    def as_user(self, name: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[name]}"}


@pytest.fixture(scope="module")
def api(bubblewrap: Sandbox, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """Setter sam, solvers ann and bob; 'squares' open, 'draft' only added."""
    url = sqlite_url(tmp_path_factory.mktemp("dojo-http") / "dojo.sqlite3")
    dojo = Dojo(open_store(url), SystemClock(), lambda: bubblewrap)
    tokens = {name: dojo.add_user(name, role)[1] for name, role in (("sam", Role.SETTER), ("ann", Role.SOLVER),
                                                                     ("bob", Role.SOLVER))}  # fmt: skip
    dojo.create_season("s1")
    for slug in ("squares", "draft"):
        dojo.add_problem("s1", slug, "sam", ProblemFiles(Path(slug), SQUARES, slug.title(), "", 0, 10))
    assert dojo.validate("squares").accepted
    dojo.open("squares")
    with TestClient(create_app({"db": url}), base_url="http://testserver/dojo") as client:
        yield Api(client, tokens)


def test_no_token_or_an_unknown_one_is_401(api: Api) -> None:
    assert api.client.get("/api/me/submissions").status_code == 401
    assert api.client.get("/api/me/submissions", headers={"Authorization": "Bearer nobody"}).status_code == 401
    assert api.client.get("/api/me/submissions", headers={"Authorization": "Basic x"}).status_code == 401
    assert api.client.post("/api/problems/squares/submissions", json=SOLVER).status_code == 401


def test_a_role_that_may_not_is_403(api: Api) -> None:
    answer = api.client.post("/api/problems/squares/submissions", json=SOLVER, headers=api.as_user("sam"))
    assert answer.status_code == 403 and "only solvers submit" in answer.json()["error"]


def test_an_unpublished_problem_is_answered_as_a_missing_one(api: Api) -> None:
    for path in ("/api/problems/{}", "/api/problems/{}/leaderboard", "/problems/{}"):
        draft, missing = api.client.get(path.format("draft")), api.client.get(path.format("nothing"))
        assert draft.status_code == missing.status_code == 404
        assert draft.json() == {**missing.json(), "error": missing.json()["error"].replace("nothing", "draft")}
    draft = api.client.post("/api/problems/draft/submissions", json=SOLVER, headers=api.as_user("ann"))
    missing = api.client.post("/api/problems/nothing/submissions", json=SOLVER, headers=api.as_user("ann"))
    assert draft.status_code == missing.status_code == 404 and "DRAFT" not in draft.text
    assert draft.json()["error"] == "no problem 'draft'"


def test_another_users_submission_is_answered_as_a_missing_one(api: Api) -> None:
    receipt = api.client.post("/api/problems/squares/submissions", json=SOLVER, headers=api.as_user("ann"))
    assert receipt.status_code == 202
    sid = receipt.json()["id"]
    assert api.client.get(f"/api/submissions/{sid}", headers=api.as_user("ann")).status_code == 200
    theirs = api.client.get(f"/api/submissions/{sid}", headers=api.as_user("bob"))
    missing = api.client.get(f"/api/submissions/{sid + 1000}", headers=api.as_user("bob"))
    assert theirs.status_code == missing.status_code == 404
    assert theirs.json() == {"error": f"no submission {sid}", "fix": None}
    assert missing.json() == {"error": f"no submission {sid + 1000}", "fix": None}


def test_not_revealed_yet_is_404_and_a_malformed_body_422(api: Api) -> None:
    assert api.client.get("/api/problems/squares/leaderboard").status_code == 404
    bad = api.client.post("/api/problems/squares/submissions", json={"code": "x"}, headers=api.as_user("ann"))
    assert bad.status_code == 422
