"""Who is calling: an API token in the ``Authorization: Bearer`` header, or a signed-in page's session.

A track supplies ``authenticate(token) -> user`` (usually ``Accounts.authenticate`` on a connection) and a
``SessionStore`` (``podium.web.sessions``, over the track's sessions table); ``TokenAuth`` does the HTTP part the
same way for every track:

- the API takes the header only (``api_user``): a missing or malformed header is ``AuthError`` (401), like an
  unknown token;
- the pages sign in once with the token (``sign_in``): it is checked, a server-side session starts, and the
  browser keeps only the session's id, in a cookie that scripts cannot read (``HttpOnly``) and that other sites'
  pages never send (``SameSite=Strict``); ``page_user`` reads it, and ``sign_out`` ends the session on the server,
  so the cookie is worthless after it. The permanent token never sits in a cookie;
- wrong tokens are counted per client address, on sign-in and on the API alike (``LoginLimiter``): after 10 in
  10 minutes a wrong token is answered 429 with a ``Retry-After`` that doubles with each further one (1 s, 2 s, ...
  at most the window). A **right** token is always accepted, from any address: a room of annotators behind one
  NAT is never locked out by one person's typos. What prevents guessing is the token itself (256 random bits:
  ``core.accounts``), not the limit, which only slows and flags a noisy client.

Cross-site forgery and the security headers are the app's (``podium.web.security``). Whether a known user may do
the thing asked (a role) is the track's decision: ``PermissionDenied`` (403).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from datetime import timedelta
from typing import Generic, Protocol, TypeVar

from fastapi import Header, Request, Response

from podium.core.clock import Clock, SystemClock
from podium.core.errors import AuthError, RateLimited

U = TypeVar("U")
BEARER = "Bearer "
MAX_FAILED_SIGN_INS = 10
FAILED_SIGN_IN_WINDOW = timedelta(minutes=10)


def client_address(request: Request) -> str:
    """The address a request came from, as the limit counts it."""
    return request.client.host if request.client is not None else "unknown"


class SessionStore(Protocol[U]):
    """Where a track keeps its pages' sessions (``podium.web.sessions.SqlSessionStore``)."""

    lifetime: timedelta

    def start(self, user: U) -> str:
        """A new session of ``user``; its id."""
        ...

    def user(self, session_id: str) -> U:
        """The user of a live session; ``AuthError`` otherwise."""
        ...

    def end(self, session_id: str) -> None:
        """End a session."""
        ...


class LoginLimiter:
    """Wrong tokens per client address in a sliding window; thread-safe (routes run in a thread pool)."""

    def __init__(
        self,
        clock: Clock | None = None,
        attempts: int = MAX_FAILED_SIGN_INS,
        window: timedelta = FAILED_SIGN_IN_WINDOW,
    ) -> None:
        self.clock = clock or SystemClock()
        self.attempts = attempts
        self.window = window
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, client: str, now: float) -> deque[float]:
        failures = self._failures.setdefault(client, deque())
        while failures and failures[0] <= now - self.window.total_seconds():
            failures.popleft()
        return failures

    def failed(self, client: str) -> RateLimited | None:
        """Count a wrong token from ``client``; past the limit, the refusal to give instead of a plain 401."""
        now = self.clock.now().timestamp()
        with self._lock:
            failures = self._recent(client, now)
            failures.append(now)
            count = len(failures)
            if len(self._failures) > 100_000:  # addresses that stopped trying: forget the oldest half
                for stale in list(self._failures)[:50_000]:
                    del self._failures[stale]
        if count <= self.attempts:
            return None
        wait = int(min(2 ** min(count - self.attempts - 1, 30), self.window.total_seconds()))
        return RateLimited(
            f"too many wrong tokens from this address ({count} in {int(self.window.total_seconds() // 60)} "
            "minutes); the right one is still accepted",
            retry_after_s=max(1, wait),
            fix=f"wait {max(1, wait)} s, and check the token you were given",
        )


class TokenAuth(Generic[U]):
    """Token and session authentication for one track's routes."""

    def __init__(
        self,
        authenticate: Callable[[str], U],
        cookie: str,
        sessions: SessionStore[U],
        *,
        path: str = "/",
        limiter: LoginLimiter | None = None,
    ) -> None:
        self._authenticate = authenticate
        self.cookie = cookie
        self.sessions = sessions
        self.path = path  # the cookie is sent only under the track's own pages
        self.limiter = limiter or LoginLimiter()

    def user(self, token: str, client: str | None = None) -> U:
        """The user ``token`` belongs to; ``AuthError`` for an empty or unknown one.

        With ``client`` (the caller's address) a wrong token is counted, and past the limit refused with
        ``RateLimited`` instead; a right one is never refused.
        """
        try:
            if not token:
                raise AuthError("unknown or missing API token", fix="sign in with the token you were given")
            return self._authenticate(token)
        except AuthError:
            refusal = self.limiter.failed(client) if client is not None else None
            if refusal is not None:
                raise refusal from None
            raise

    def api_user(self, request: Request, authorization: str | None = Header(None)) -> U:
        """The caller named by ``Authorization: Bearer TOKEN`` (a FastAPI dependency, or called with the header)."""
        if not authorization or not authorization.startswith(BEARER):
            raise AuthError("missing API token", fix="send the header 'Authorization: Bearer TOKEN'")
        return self.user(authorization.removeprefix(BEARER).strip(), client_address(request))

    def page_user(self, request: Request) -> U:
        """The user of the page's session (``AuthError`` when not signed in)."""
        session = request.cookies.get(self.cookie, "")
        if not session:
            raise AuthError("not signed in", fix="sign in with the token you were given")
        return self.sessions.user(session)

    def caller(self, request: Request, authorization: str | None) -> U:
        """The bearer token's user where there is an ``Authorization`` header (malformed: refused), else the page's.

        Scripts and the pages' own requests reach the same routes.
        """
        if authorization is not None:
            return self.api_user(request, authorization)
        return self.page_user(request)

    def sign_in(self, request: Request, response: Response, token: str) -> U:
        """Check ``token`` (a wrong one counted against the client's address), start a session, set the cookie."""
        user = self.user(token, client_address(request))
        session = self.sessions.start(user)
        response.set_cookie(
            self.cookie, session, httponly=True, samesite="strict", path=self.path,
            max_age=int(self.sessions.lifetime.total_seconds()),
        )  # fmt: skip
        return user

    def sign_out(self, request: Request, response: Response) -> None:
        """End the page's session on the server and drop the cookie."""
        session = request.cookies.get(self.cookie, "")
        if session:
            self.sessions.end(session)
        response.delete_cookie(self.cookie, path=self.path)
