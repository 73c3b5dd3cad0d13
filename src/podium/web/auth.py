"""Who is calling: an API token from the ``Authorization: Bearer`` header, or from the pages' HTTP-only cookie.

A track supplies ``authenticate(token) -> user`` (usually ``podium.core.accounts.Accounts.authenticate`` on a
connection) and the name of its cookie; ``TokenAuth`` does the HTTP part the same way for every track:

- the API takes the header only (``Depends(auth.api_user)``): a missing or malformed header is ``AuthError``
  (401), like an unknown token;
- the pages take the token once, from a form field, and keep it in a cookie that scripts cannot read
  (``HttpOnly``) and that other sites' pages never send (``SameSite=Strict``): ``token_of(request, given)`` is
  the form's token or else the cookie's, ``user(token)`` authenticates it and ``remember(response, token)`` sets
  the cookie once it worked.

Whether a known user may do the thing asked (a role) is the track's decision: ``PermissionDenied`` (403).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from fastapi import Header, Request, Response

from podium.core.errors import AuthError

U = TypeVar("U")
BEARER = "Bearer "


class TokenAuth(Generic[U]):
    """Token authentication for one track's routes."""

    def __init__(self, authenticate: Callable[[str], U], cookie: str) -> None:
        self._authenticate = authenticate
        self.cookie = cookie

    def user(self, token: str) -> U:
        """The user ``token`` belongs to; ``AuthError`` for an empty or unknown one."""
        if not token:
            raise AuthError("unknown or missing API token", fix="sign in with the token you were given")
        return self._authenticate(token)

    def api_user(self, authorization: str | None = Header(None)) -> U:
        """The caller named by ``Authorization: Bearer TOKEN`` (a FastAPI dependency, or called with the header)."""
        if not authorization or not authorization.startswith(BEARER):
            raise AuthError("missing API token", fix="send the header 'Authorization: Bearer TOKEN'")
        return self.user(authorization.removeprefix(BEARER).strip())

    def token_of(self, request: Request, given: str = "") -> str:
        """The token a page request carries: ``given`` (a form field) if any, else the cookie's ("" for none)."""
        return given or request.cookies.get(self.cookie, "")

    def remember(self, response: Response, token: str) -> None:
        """Keep ``token`` in the HTTP-only, same-site cookie (call once it has authenticated)."""
        response.set_cookie(self.cookie, token, httponly=True, samesite="strict")
