"""Podium's errors as HTTP answers: one status per branch of the error tree (drawn in ``podium.core.errors``).

401 when the caller is unknown (no token, or a token of nobody); 403 when a known caller's role may not do this; 404
for what does not exist *and* for what exists but the caller may not see, worded identically so the answer hints at
nothing hidden; 409 only for real conflicts with the current state (a lifecycle move, a concurrent change); 429 for
too many attempts (failed sign-ins, with ``Retry-After``); 400 for bad input, 422 for a body or query that fails its
model; 503 for a missing dependency. Any other deliberate error is 500: it needs an operator, and guessing a 4xx
would blame the caller. Every refusal has one shape, ``{"error", "fix"}`` (a 422 adds ``fields``); a page request
(a browser asking for HTML, outside ``/api/``) gets the same words as a page.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from podium.core.errors import (
    AuthError,
    ConfigError,
    ConflictError,
    DependencyError,
    InputError,
    NotFoundError,
    PermissionDenied,
    PodiumError,
    RateLimited,
)

# Most specific first: NotFoundError is an InputError.
STATUS_OF: tuple[tuple[type[PodiumError], int], ...] = (
    (NotFoundError, 404),
    (AuthError, 401),
    (PermissionDenied, 403),
    (ConflictError, 409),
    (RateLimited, 429),
    (InputError, 400),
    (ConfigError, 400),
    (DependencyError, 503),
)


def http_status(error: PodiumError) -> int:
    """The HTTP status that answers ``error``."""
    return next((code for kind, code in STATUS_OF if isinstance(error, kind)), 500)


VALIDATION_FIX = "send the fields this route takes, with their types (the API's description: /api/docs)"


VALIDATION_SCHEMA: dict[str, Any] = {  # ``validation_answer`` as the OpenAPI document describes it
    "title": "ValidationRefusal",
    "type": "object",
    "required": ["error", "fix", "fields"],
    "properties": {
        "error": {"type": "string"},
        "fix": {"type": "string"},
        "fields": {"type": "array", "items": {"type": "object", "properties": {
            "field": {"type": "string"}, "problem": {"type": "string"}}}},
    },
}  # fmt: skip


def validation_answer(errors: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A body or query that fails its model (422), in podium's shape ``{"error", "fix", "fields"}``.

    FastAPI's own answer (``{"detail": [...]}``) echoes the input back: a whole submitted source, or text that
    cannot be encoded. This one names each field and what is wrong with it, and nothing the caller sent.
    """
    fields = [
        {"field": ".".join(str(part) for part in error.get("loc", ()) if part != "body") or "body",
         "problem": str(error.get("msg", "not valid"))}
        for error in errors
    ]  # fmt: skip
    listed = "; ".join(f"{f['field']}: {f['problem']}" for f in fields) or "the request is not valid"
    return {"error": f"the request does not fit this route: {listed}", "fix": VALIDATION_FIX, "fields": fields}


def http_answer(status: int) -> dict[str, Any]:
    """Starlette's own refusals (no such path, a method the path does not take) in podium's shape."""
    if status == 404:
        return {"error": "no such page or API path", "fix": "start from / (the tracks served) or /api/docs"}
    if status == 405:
        return {"error": "this path does not take that method", "fix": "see /api/docs for what each path takes"}
    return {"error": f"HTTP {status}", "fix": None}


def answer(request: Any, body: Mapping[str, Any], status: int, headers: Mapping[str, str] | None = None) -> Any:
    """A refusal in podium's one shape: JSON for the API, or the same words as a page for a browser's page request.

    A page request is one whose path is not under ``/api/`` and that accepts HTML (a browser's navigation or form
    post): a person who sent an empty form should read a page, not raw JSON. The JSON escapes every non-ASCII
    character, so no text (a lone surrogate) can fail to encode.
    """
    from fastapi.responses import HTMLResponse, Response

    from podium.web.layout import esc, page

    if "/api/" not in request.url.path and "text/html" in request.headers.get("accept", ""):
        fix = f"<p class='note'>{esc(str(body['fix']))}</p>" if body.get("fix") else ""
        said = f"<p class='warn'>{esc(str(body['error']))}</p>{fix}<p><a href='/'>Start again</a></p>"
        return HTMLResponse(page("Not done", said, site="podium"), status_code=status, headers=dict(headers or {}))
    text = json.dumps(dict(body), ensure_ascii=True, default=str)
    return Response(text, status_code=status, headers=dict(headers or {}), media_type="application/json")
