"""The dojo API's answers to callers it must refuse: 401 unknown, 403 not allowed, 404 unknown or hidden, 422.

In process (FastAPI's test client over the real app and a real SQLite file): what matters here is the status and
that a hidden thing (a draft problem, another user's submission) is answered word for word like a missing one.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.needs import need_module

need_module("fastapi", "web")
from fastapi.testclient import TestClient  # after the check above: the web extra is optional

from podium.core.clock import SystemClock
from podium.core.execution.sandbox import Sandbox
from podium.core.storage.sql import sqlite_url
from podium.tracks.dojo.platform import Dojo
from podium.tracks.dojo.problem import ProblemFiles
from podium.tracks.dojo.records import Role
from podium.tracks.dojo.store import open_store
from podium.web.app import create_app

from .serving import free_port, wait_until_up

SQUARES = b"n=0\nwhile 1:print(n*n);n+=1\n"
SOLVER = {"source": "n=0\nwhile 1:print(n*n);n+=1\n"}


@dataclass
class Api:
    client: TestClient
    tokens: dict[str, str]
    url: str

    def as_user(self, name: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[name]}"}


@pytest.fixture(scope="module")
def api(bubblewrap: Sandbox, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """Setter sam, solvers ann and bob; 'squares' open, 'draft' only added."""
    url = sqlite_url(tmp_path_factory.mktemp("dojo-http") / "dojo.sqlite3")
    dojo = Dojo(open_store(url), SystemClock(), lambda: bubblewrap)
    roles = {"sam": Role.SETTER, "ann": Role.SOLVER, "bob": Role.SOLVER, "ops": Role.OPERATOR}
    tokens = {name: dojo.add_user(name, role)[1] for name, role in roles.items()}
    dojo.create_season("s1")
    for slug in ("squares", "draft"):
        dojo.add_problem("s1", slug, "sam", ProblemFiles(Path(slug), SQUARES, slug.title(), "", 0, 10))
    assert dojo.validate("squares").accepted
    dojo.open("squares")
    with TestClient(create_app({"db": url}), base_url="http://testserver/dojo") as client:
        yield Api(client, tokens, url)


def test_no_token_or_an_unknown_one_is_401(api: Api) -> None:
    assert api.client.get("/api/me/submissions").status_code == 401
    assert api.client.get("/api/me/submissions", headers={"Authorization": "Bearer nobody"}).status_code == 401
    assert api.client.get("/api/me/submissions", headers={"Authorization": "Basic x"}).status_code == 401
    assert api.client.post("/api/problems/squares/submissions", json=SOLVER).status_code == 401


def test_a_role_that_may_not_is_403(api: Api) -> None:
    for name in ("sam", "ops"):  # setters and operators do not compete
        answer = api.client.post("/api/problems/squares/submissions", json=SOLVER, headers=api.as_user(name))
        assert answer.status_code == 403 and "only solvers submit" in answer.json()["error"]
        assert f"has the role {'setter' if name == 'sam' else 'operator'}" in answer.json()["error"]  # not "a operator"


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


def test_a_receipt_says_where_the_verdict_appears_and_how_many_more_count(api: Api) -> None:
    answers = [api.client.post("/api/problems/squares/submissions", json=SOLVER, headers=api.as_user("ann"))
               for _ in range(2)]  # fmt: skip
    first, second = (a.headers for a in answers)
    assert first["location"] == f"/dojo/api/submissions/{answers[0].json()['id']}"
    assert int(first["x-submissions-remaining"]) == int(second["x-submissions-remaining"]) + 1  # of 20 in 600 s
    assert api.client.get(first["location"].removeprefix("/dojo"), headers=api.as_user("ann")).status_code == 200


def test_not_revealed_yet_is_404_and_a_malformed_body_422(api: Api) -> None:
    assert api.client.get("/api/problems/squares/leaderboard").status_code == 404
    bad = api.client.post("/api/problems/squares/submissions", json={"code": "x"}, headers=api.as_user("ann"))
    assert bad.status_code == 422


def submissions_of(api: Api, name: str) -> int:
    return len(api.client.get("/api/me/submissions", headers=api.as_user(name)).json())


def test_the_oversized_source_is_refused_with_the_judges_reason(api: Api) -> None:
    before = submissions_of(api, "bob")
    source = "n=0\nwhile 1:print(n*n);n+=1\n" + "# padding padding padding padding padding padding padding\n" * 1300
    source = source[:70_046] + "\n"
    assert len(source.encode()) == 70_047
    answer = api.client.post("/api/problems/squares/submissions", json={"source": source}, headers=api.as_user("bob"))
    assert answer.status_code == 400
    assert "POLICY_REJECT" in answer.json()["error"] and "70047 bytes; at most 65536" in answer.json()["error"]
    assert submissions_of(api, "bob") == before


def test_a_malformed_solution_is_refused_with_the_reason(api: Api) -> None:
    before = submissions_of(api, "bob")
    for solution in ("closed_form", ["closed_form"], 7):
        body = {"source": SOLVER["source"], "solution": solution}
        answer = api.client.post("/api/problems/squares/submissions", json=body, headers=api.as_user("bob"))
        assert answer.status_code == 422 and "solution" in answer.text
    assert submissions_of(api, "bob") == before


def test_every_refusal_has_one_shape_and_echoes_nothing_sent(api: Api) -> None:
    secret = "n=0\nwhile 1:print(n*n);n+=1  # mine"
    wrong = api.client.post("/api/problems/squares/submissions", json={"source": secret, "solution": 7},
                            headers=api.as_user("bob"))  # fmt: skip
    assert wrong.status_code == 422 and set(wrong.json()) == {"error", "fix", "fields"}
    assert wrong.json()["fields"][0]["field"] == "solution" and "mine" not in wrong.text  # the source is not echoed
    paged = api.client.get("/api/operator/submissions?limit=0", headers=api.as_user("ops"))
    assert paged.status_code == 422 and paged.json()["fields"][0]["field"] == "query.limit"
    for path, status in (("/api/nothing/here", 404), ("/api/problems/squares/submissions", 405)):
        refused = api.client.get(path)
        assert refused.status_code == status and set(refused.json()) == {"error", "fix"}, path


def test_a_browser_is_answered_with_a_page_not_raw_json(api: Api) -> None:
    html = {"Accept": "text/html,application/xhtml+xml", "Origin": "http://testserver"}
    unknown = api.client.get("/problems/nothing", headers=html)
    assert unknown.status_code == 404 and unknown.headers["content-type"].startswith("text/html")
    assert "no problem &#x27;nothing&#x27;" in unknown.text and "<h1>Not done</h1>" in unknown.text
    empty = api.client.post("/submit/squares", data={"source": "  ", "token": api.tokens["bob"]}, headers=html)
    assert empty.status_code == 400 and "empty or only whitespace" in empty.text and "<h1>" in empty.text
    missing = api.client.post("/submit/squares", data={"token": api.tokens["bob"]}, headers=html)
    assert missing.status_code == 422 and "source" in missing.text and "<h1>" in missing.text
    assert api.client.get("/api/problems/nothing", headers=html).headers["content-type"] == "application/json"


def test_a_lone_surrogate_is_422(api: Api) -> None:
    for body in ('{"source": "print(1)\\ud800"}', '{"source": "print(1)", "solution": {"method_tag": "\\udfff"}}'):
        answer = api.client.post(
            "/api/problems/squares/submissions",
            content=body.encode(),
            headers={**api.as_user("bob"), "Content-Type": "application/json"},
        )
        assert answer.status_code == 422, answer.text
        assert "surrogate" in answer.text


def test_a_body_over_the_limit_is_413(api: Api) -> None:
    before = submissions_of(api, "bob")
    headers = {**api.as_user("bob"), "Content-Type": "application/json"}
    big = json.dumps({"source": "print(1)\n" + "#" * 50_000_000}).encode()
    answer = api.client.post("/api/problems/squares/submissions", content=big, headers=headers)
    assert answer.status_code == 413 and "at most" in answer.json()["error"]

    def stream() -> Iterator[bytes]:  # no Content-Length (chunked): the body is capped as it arrives
        yield b'{"source": "'
        for _ in range(800):
            yield b"#" * 65536
        yield b'"}'

    answer = api.client.post("/api/problems/squares/submissions", content=stream(), headers=headers)
    assert answer.status_code == 413 and "at most" in answer.json()["error"]
    assert submissions_of(api, "bob") == before


def peak_rss_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:")))


def test_a_real_server_refuses_a_50_mb_body_without_reading_it(api: Api, tmp_path: Path) -> None:
    port, log = free_port(), tmp_path / "serve.log"
    env = {**os.environ, "PODIUM_DB": api.url}
    with log.open("wb") as sink:
        server = subprocess.Popen([sys.executable, "-m", "podium", "serve", "--port", str(port)], env=env,
                                  stdout=sink, stderr=sink)  # fmt: skip
    try:
        wait_until_up(f"http://127.0.0.1:{port}/healthz", server, log)
        path = "/dojo/api/problems/squares/submissions"
        ok = httpx.post(f"http://127.0.0.1:{port}{path}", json=SOLVER, headers=api.as_user("bob"), timeout=30)
        assert ok.status_code == 202
        before = peak_rss_kib(server.pid)
        # a declared 50 MB body: the answer comes after the headers alone, before any of the body is sent
        with socket.create_connection(("127.0.0.1", port), timeout=30) as raw:
            raw.sendall(
                f"POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {api.tokens['bob']}\r\n"
                "Content-Type: application/json\r\nContent-Length: 50000000\r\n\r\n".encode()
            )
            assert raw.recv(4096).startswith(b"HTTP/1.1 413 ")
        sent = 0

        def stream() -> Iterator[bytes]:
            nonlocal sent
            for _ in range(800):  # 50 MiB, chunked
                sent += 1
                yield b"#" * 65536

        try:
            answer = httpx.post(f"http://127.0.0.1:{port}{path}", content=stream(), timeout=30,
                                headers={**api.as_user("bob"), "Content-Type": "application/json"})  # fmt: skip
            assert answer.status_code == 413
        except httpx.TransportError:
            pass  # the server answered and closed the connection while the client was still sending
        assert peak_rss_kib(server.pid) - before < 20 * 1024, "the server held the body"
        assert submissions_of(api, "bob") >= 1
    finally:
        server.terminate()
        server.wait(timeout=30)
