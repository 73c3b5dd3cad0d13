"""Bearer and session authentication on a tiny app of its own.

The session store here is a dictionary (the logic around it is under test; the SQL store has its own tests).
"""

from __future__ import annotations

from tests.needs import need_module

need_module("fastapi", "web")
import secrets
from datetime import timedelta

from fastapi import Depends, FastAPI, Form, Request  # after the check above: the web extra is optional
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.testclient import TestClient

from podium.core.errors import AuthError, PodiumError
from podium.web.auth import TokenAuth
from podium.web.errors import http_status
from podium.web.layout import page

USERS = {"t-ann": "ann"}


class DictSessions:
    lifetime = timedelta(hours=1)

    def __init__(self) -> None:
        self.live: dict[str, str] = {}

    def start(self, user: str) -> str:
        session = secrets.token_urlsafe(16)
        self.live[session] = user
        return session

    def user(self, session_id: str) -> str:
        if session_id not in self.live:
            raise AuthError("not signed in")
        return self.live[session_id]

    def end(self, session_id: str) -> None:
        self.live.pop(session_id, None)


def lookup(token: str) -> str:
    if token not in USERS:
        raise AuthError("unknown or missing API token")
    return USERS[token]


def app() -> FastAPI:
    auth = TokenAuth(lookup, "demo_token", DictSessions())
    made = FastAPI()

    @made.exception_handler(PodiumError)
    def refuse(_request: Request, error: PodiumError) -> JSONResponse:
        return JSONResponse({"error": error.message}, status_code=http_status(error))

    @made.get("/api/me")
    def me(user: str = Depends(auth.api_user)) -> dict[str, str]:
        return {"user": user}

    @made.post("/sign-in")
    def sign_in(request: Request, token: str = Form("")) -> HTMLResponse:
        response = HTMLResponse(page("Hello", "<p>signed in</p>", site="Demo"))
        auth.sign_in(request, response, token)
        return response

    @made.post("/sign-out")
    def sign_out(request: Request) -> HTMLResponse:
        response = HTMLResponse("bye")
        auth.sign_out(request, response)
        return response

    @made.get("/page", response_class=HTMLResponse)
    def signed_in_page(request: Request) -> str:
        return page("Me", auth.page_user(request), site="Demo")

    return made


def test_bearer_header_for_the_api() -> None:
    client = TestClient(app())
    assert client.get("/api/me", headers={"Authorization": "Bearer t-ann"}).json() == {"user": "ann"}
    for headers in ({}, {"Authorization": "t-ann"}, {"Authorization": "Bearer nope"}):
        assert client.get("/api/me", headers=headers).status_code == 401
    client.cookies.set("demo_token", "t-ann")
    assert client.get("/api/me").status_code == 401  # the API takes no cookie


def test_a_working_token_starts_a_session_kept_in_an_http_only_same_site_cookie() -> None:
    client = TestClient(app())
    assert client.get("/page").status_code == 401
    assert client.post("/sign-in", data={"token": "nope"}).status_code == 401
    signed = client.post("/sign-in", data={"token": "t-ann"})
    cookie = signed.headers["set-cookie"]
    assert cookie.startswith("demo_token=") and "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert "t-ann" not in cookie  # the session's id, never the token
    assert "<h1>Me</h1>ann" in client.get("/page").text
    copied = client.cookies["demo_token"]
    client.post("/sign-out")
    client.cookies.set("demo_token", copied)  # a copy of the cookie kept from before signing out
    assert client.get("/page").status_code == 401
