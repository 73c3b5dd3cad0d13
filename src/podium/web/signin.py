"""The sign-in and sign-out flow every track's pages share: one form, and one answer to each outcome.

A track names where its form posts and how it lays out a page; ``sign_in_answer`` does the rest the same way
everywhere: a working token starts a session and redirects (303) to the track's first page, an unknown one shows
the form again with the reason (401), too many failures show it with the wait (429 and ``Retry-After``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from podium.core.errors import AuthError, RateLimited
from podium.core.reporting.markup import esc
from podium.web.auth import TokenAuth


def sign_in_form(action: str, problem: str = "") -> str:
    """The form that asks for the token, after the reason the last try failed (if any)."""
    shown = f"<p role='alert'><strong>{esc(problem)}</strong></p>" if problem else ""
    return (
        f"{shown}<form method='post' action='{esc(action)}'><p><label>API token <input name='token' "
        "type='password' autocomplete='off' required></label> <button type='submit'>Sign in</button></p></form>"
    )


def sign_out_form(action: str) -> str:
    """A sign-out button (a POST: a link could be followed by another site's page)."""
    return f"<form method='post' action='{esc(action)}'><button type='submit'>Sign out</button></form>"


def sign_in_answer(
    auth: TokenAuth[Any], request: Request, token: str, *, success: str, page: Callable[[str], str]
) -> Response:
    """Sign in with ``token`` and redirect to ``success``, or show ``page(problem)`` with the status it deserves."""
    response = RedirectResponse(success, status_code=303)
    try:
        auth.sign_in(request, response, token)
    except AuthError as error:
        return HTMLResponse(page(error.message), status_code=401)
    except RateLimited as error:
        wait = {"retry-after": str(error.retry_after_s)}
        return HTMLResponse(page(f"{error.message}: {error.fix}"), status_code=429, headers=wait)
    return response
