"""Web safety of ``podium serve`` for every track with pages: cross-site requests, sessions, sign-in limits, headers.

The app is the one ``podium serve`` builds, serving wmeval and the dojo each on its own SQLite database, through
Starlette's test client (host ``testserver``). The attacks are the ones a red team ran: a page on another port of
the same host posting with the operator's cookie (SameSite=Strict does not stop it: same site), a cookie copied
before sign-out, and token guessing at the sign-in form.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.needs import need_module

need_module("fastapi", "web")
from fastapi.testclient import TestClient  # after the check above: the web extra is optional

from podium.core.clock import ManualClock, SystemClock
from podium.core.errors import ConfigError
from podium.core.execution.sandbox import open_sandbox
from podium.tracks.dojo.platform import Dojo
from podium.tracks.dojo.records import Role
from podium.tracks.dojo.store import open_store as open_dojo
from podium.tracks.dojo.track import TRACK as DOJO
from podium.tracks.wmeval.store import add_account
from podium.tracks.wmeval.store import open_store as open_wmeval
from podium.tracks.wmeval.track import TRACK as WMEVAL
from podium.web.app import create_app
from podium.web.auth import LoginLimiter
from podium.web.security import CONTENT_SECURITY_POLICY
from podium.web.serving import tracks_to_serve

HERE = "http://testserver"
OTHER_PORT = "http://testserver:8081"  # same host, so same site: the cookie goes along


@dataclass(frozen=True)
class TrackPages:
    """Where a track's pages sign in and out, and a page that tells who is signed in."""

    name: str
    sign_in: str
    sign_out: str
    whoami: str
    signed_in_text: str
    state_change: str  # a cookie-authenticated POST that changes something


PAGES = {
    "wmeval": TrackPages("wmeval", "/wmeval/signin", "/wmeval/signout", "/wmeval/queue", "Queue of ann",
                         "/wmeval/api/items/0123456789abcdef/score"),
    "dojo": TrackPages("dojo", "/dojo/me", "/dojo/signout", "/dojo/me", "Submissions of ann", "/dojo/submit/fib"),
}  # fmt: skip


@dataclass
class Served:
    client: TestClient
    tokens: dict[str, str]  # track -> ann's token


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    wmeval_url, dojo_url = f"sqlite:///{tmp_path / 'wmeval.sqlite3'}", f"sqlite:///{tmp_path / 'dojo.sqlite3'}"
    _, wmeval_token = add_account(open_wmeval(wmeval_url), SystemClock(), "ann", "annotator")
    dojo = Dojo(open_dojo(dojo_url), SystemClock(), lambda: open_sandbox("rlimits", allow_weaker=True))
    _, dojo_token = dojo.add_user("ann", Role.SOLVER)
    app = create_app({}, {"wmeval": WMEVAL, "dojo": DOJO},
                     track_settings={"wmeval": {"db": wmeval_url}, "dojo": {"db": dojo_url}})  # fmt: skip
    with TestClient(app) as client:
        yield Served(client, {"wmeval": wmeval_token, "dojo": dojo_token})


def sign_in(served: Served, pages: TrackPages, origin: str = HERE) -> int:
    answer = served.client.post(pages.sign_in, data={"token": served.tokens[pages.name]}, headers={"origin": origin},
                                follow_redirects=False)  # fmt: skip
    return answer.status_code


def signed_in(served: Served, pages: TrackPages) -> bool:
    return pages.signed_in_text in served.client.get(pages.whoami).text


@pytest.mark.parametrize("track", PAGES)
def test_a_page_on_another_port_cannot_change_anything_with_the_cookie(served: Served, track: str) -> None:
    pages = PAGES[track]
    assert sign_in(served, pages, OTHER_PORT) == 403  # no sign-in from elsewhere (login CSRF) either
    assert sign_in(served, pages) == 303 and signed_in(served, pages)
    for headers in ({"origin": OTHER_PORT}, {"origin": "null"}, {"referer": f"{OTHER_PORT}/evil.html"}, {}):
        for path in (pages.state_change, pages.sign_out):
            answer = served.client.post(path, data={"score": "0", "source": "print(1)"}, headers=headers)
            assert answer.status_code == 403, (path, headers)
            assert answer.json()["error"].startswith("cross-site request refused")
    assert signed_in(served, pages)  # the forged sign-out did nothing
    same_page = served.client.post(pages.sign_out, headers={"referer": f"{HERE}/{track}/"}, follow_redirects=False)
    assert same_page.status_code == 303 and not signed_in(served, pages)


@pytest.mark.parametrize("track", PAGES)
def test_signing_out_ends_the_session_on_the_server(served: Served, track: str) -> None:
    pages = PAGES[track]
    assert sign_in(served, pages) == 303
    copied = served.client.cookies.get(f"podium_{track}_token")
    assert copied and copied != served.tokens[track]  # the cookie holds a session id, not the token
    served.client.post(pages.sign_out, headers={"origin": HERE})
    served.client.cookies.set(f"podium_{track}_token", copied, path=f"/{track}")  # a copy taken before
    assert not signed_in(served, pages)
    served.client.cookies.clear()
    assert sign_in(served, pages) == 303 and signed_in(served, pages)  # a new sign-in is a new session


@pytest.mark.parametrize("track", PAGES)
def test_api_clients_with_a_bearer_token_need_no_origin(served: Served, track: str) -> None:
    bearer = {"authorization": f"Bearer {served.tokens[track]}"}
    if track == "wmeval":
        path, body = "/wmeval/api/items/0123456789abcdef/score", {"score": 1}
    else:
        path, body = "/dojo/api/problems/fib/submissions", {"source": "print(1)"}
    answer = served.client.post(path, json=body, headers=bearer)
    assert answer.status_code == 404, answer.text  # past the origin check: the item or problem does not exist


@pytest.mark.parametrize("track", PAGES)
def test_wrong_tokens_are_limited_per_address_and_a_right_one_always_passes(served: Served, track: str) -> None:
    """A room behind one address: one person's typos never lock the others' right tokens out."""
    pages = PAGES[track]
    for _ in range(10):
        wrong = served.client.post(pages.sign_in, data={"token": "guess"}, headers={"origin": HERE})
        assert wrong.status_code == 401
    delays = []
    for _ in range(3):  # past the limit: refused with a Retry-After that doubles
        refused = served.client.post(pages.sign_in, data={"token": "guess"}, headers={"origin": HERE})
        assert refused.status_code == 429 and "too many wrong tokens" in refused.text
        delays.append(int(refused.headers["retry-after"]))
    assert delays == [1, 2, 4]
    api = "/wmeval/api/queue" if track == "wmeval" else "/dojo/api/me/submissions"
    bearer = served.client.get(api, headers={"authorization": "Bearer guess"})
    assert bearer.status_code == 429 and int(bearer.headers["retry-after"]) == 8  # the API counts too
    assert sign_in(served, pages) == 303 and signed_in(served, pages)  # the right token, from the same address
    other = "wmeval" if track == "dojo" else "dojo"
    assert sign_in(served, PAGES[other]) == 303  # each track counts its own


def test_the_limit_slides_with_the_clock_and_its_delays_grow() -> None:
    clock = ManualClock(datetime(2026, 11, 27, 9, 0, tzinfo=UTC))
    limiter = LoginLimiter(clock, attempts=3, window=timedelta(minutes=10))
    for minute in (0, 1, 2):
        clock.set(datetime(2026, 11, 27, 9, minute, tzinfo=UTC))
        assert limiter.failed("10.0.0.1") is None
    refusals = [limiter.failed("10.0.0.1") for _ in range(3)]
    assert [r.retry_after_s for r in refusals if r is not None] == [1, 2, 4]
    assert limiter.failed("10.0.0.2") is None  # another address is not affected
    clock.set(datetime(2026, 11, 27, 9, 12, 30, tzinfo=UTC))
    assert limiter.failed("10.0.0.1") is None  # every failure left the window: counting starts again
    many = LoginLimiter(clock, attempts=1, window=timedelta(minutes=10))
    assert [many.failed("a") for _ in range(40)][-1].retry_after_s == 600  # type: ignore[union-attr]  # capped


def test_every_answer_carries_the_security_headers_and_no_page_runs_inline_script(served: Served) -> None:
    for path in ("/", "/healthz", "/wmeval/", "/dojo/", "/dojo/me", "/dojo/problems/nothing", "/_podium/layout.js",
                 "/wmeval/static/annotate.js"):  # fmt: skip
        answer = served.client.get(path)
        assert answer.headers["content-security-policy"] == CONTENT_SECURITY_POLICY, path
        assert answer.headers["x-frame-options"] == "DENY" and answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["referrer-policy"] == "same-origin"
        if answer.headers["content-type"].startswith("text/html"):
            assert "<script>" not in answer.text and "<script src='/_podium/layout.js' defer>" in answer.text, path
    assert "script-src 'self';" in CONTENT_SECURITY_POLICY and "frame-ancestors 'none'" in CONTENT_SECURITY_POLICY
    refused = served.client.post("/wmeval/signin", data={"token": "x"}, headers={"origin": OTHER_PORT})
    assert refused.status_code == 403 and refused.headers["x-frame-options"] == "DENY"


def served_urls(names: tuple[str, ...], db: str | None) -> dict[str, str]:
    return {name: choice.url for name, choice in tracks_to_serve(names, db).items()}


def test_serve_takes_the_tracks_it_is_told_or_those_whose_tables_exist(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for variable in ("PODIUM_DB", "PODIUM_WMEVAL_DB", "PODIUM_DOJO_DB"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match="nothing to serve"):
        tracks_to_serve((), None)
    assert not (tmp_path / "podium.sqlite3").exists()  # looking created no database
    wmeval_url = f"sqlite:///{tmp_path / 'wmeval.sqlite3'}"
    open_wmeval(wmeval_url)
    assert served_urls((), wmeval_url) == {"wmeval": wmeval_url}  # not the dojo: its tables are not there
    create_app({}, only={"wmeval"}, track_settings={"wmeval": {"db": wmeval_url}})
    assert served_urls((), wmeval_url) == {"wmeval": wmeval_url}  # serving it added no dojo tables
    dojo_url = f"sqlite:///{tmp_path / 'dojo.sqlite3'}"
    monkeypatch.setenv("PODIUM_WMEVAL_DB", wmeval_url)
    monkeypatch.setenv("PODIUM_DOJO_DB", dojo_url)
    assert served_urls(("dojo",), None) == {"dojo": dojo_url}
    assert served_urls((), None) == {"wmeval": wmeval_url}
    with pytest.raises(ConfigError, match="no track with pages called pcg"):
        tracks_to_serve(("pcg",), None)


def test_head_is_answered_as_get_without_a_body(served: Served) -> None:
    for path in ("/", "/healthz", "/wmeval/", "/dojo/"):
        head, get = served.client.head(path), served.client.get(path)
        assert (head.status_code, head.content) == (get.status_code, b""), path  # FastAPI alone answered 405
        assert head.headers["content-type"] == get.headers["content-type"]
        assert head.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
