"""The ``podium serve`` application: the tracks it is told to serve mount their routers.

A track's ``web_router(settings)`` gets its settings (``db``: its database URL) and returns a FastAPI
``APIRouter``; only the tracks asked for are mounted, so only their tables are created in their databases. A
track that cannot be loaded is named on stderr and left out; the others are served. The factory adds a health
check, a page at ``/`` that lists the tracks served and links to each, the pages' shared script
(``/_podium/layout.js``: no page runs an inline script), the security headers and the cross-site check of every
state change (``podium.web.security``), and answers podium's errors as JSON ``{"error", "fix"}`` with the status
``podium.web.errors`` gives each branch of the error tree (401, 403, 404, 409, 429, 400, 503).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from podium.core.errors import DependencyError, PodiumError, RateLimited
from podium.core.registry import Track, load_tracks
from podium.web.errors import VALIDATION_SCHEMA, answer, http_answer, http_status, validation_answer
from podium.web.layout import SCRIPT, SCRIPT_PATH, esc, page
from podium.web.security import ALLOWED_ORIGINS_ENV, WebSafety


def create_app(
    settings: Mapping[str, str],
    tracks: Mapping[str, Track] | None = None,
    *,
    only: Collection[str] | None = None,
    track_settings: Mapping[str, Mapping[str, str]] | None = None,
) -> Any:
    """The ASGI app with each track's router under ``/<track>``: the installed tracks, or ``tracks`` if given.

    ``only`` names the tracks to serve (default: all of them); ``track_settings`` gives a track its own settings
    (its database) in place of ``settings``. ``tracks`` serves a track that is not installed as an entry point yet
    (a test of a track in development, an embedding application), with the same error handling as ``podium serve``.
    """
    try:
        from fastapi import FastAPI, Request
        from fastapi.exceptions import RequestValidationError
        from fastapi.responses import HTMLResponse, Response
        from starlette.exceptions import HTTPException as StarletteHTTPException
    except ModuleNotFoundError as error:
        raise DependencyError("the web server needs FastAPI", fix="pip install 'podium[web]'") from error

    app = FastAPI(title="podium", docs_url="/api/docs")
    allowed = [o for o in os.environ.get(ALLOWED_ORIGINS_ENV, "").split(",") if o.strip()]
    app.add_middleware(WebSafety, allowed_origins=allowed)
    app.add_middleware(HeadAsGet)

    @app.get(SCRIPT_PATH, include_in_schema=False)
    def layout_script() -> Response:
        return Response(SCRIPT, media_type="text/javascript", headers={"cache-control": "max-age=3600"})

    @app.get("/healthz")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.exception_handler(PodiumError)
    def podium_error(request: Request, error: PodiumError) -> Any:
        wait = {"retry-after": str(error.retry_after_s)} if isinstance(error, RateLimited) else None
        return answer(request, {"error": error.message, "fix": error.fix}, http_status(error), wait)

    @app.exception_handler(RequestValidationError)
    def invalid_request(request: Request, error: RequestValidationError) -> Any:
        return answer(request, validation_answer(error.errors()), 422)

    @app.exception_handler(StarletteHTTPException)
    def http_refusal(request: Request, error: StarletteHTTPException) -> Any:
        return answer(request, http_answer(error.status_code), error.status_code, error.headers)

    if tracks is None:
        loaded = load_tracks()
        for failure in loaded.failures.values():  # said once at start, not as a silent 404 on every request
            print(f"warning: not serving it: {failure.describe()} (fix: {failure.fix})", file=sys.stderr)
        tracks = loaded.tracks
    served = [t for t in tracks.values() if t.web_router is not None and (only is None or t.name in only)]
    for track in served:
        assert track.web_router is not None  # for mypy: filtered above
        own = (track_settings or {}).get(track.name, settings)
        app.include_router(track.web_router(own), prefix=f"/{track.name}")

    @app.get("/", response_class=HTMLResponse)
    def index() -> str:
        return front_page([(track.name, track.summary) for track in served])

    described = app.openapi

    def openapi() -> dict[str, Any]:  # the OpenAPI document (/openapi.json, /api/docs) says podium's 422 shape
        schema: dict[str, Any] = described()
        schemas = schema.get("components", {}).get("schemas", {})
        if "HTTPValidationError" in schemas:
            schemas["HTTPValidationError"] = VALIDATION_SCHEMA
        return schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app


class HeadAsGet:
    """ASGI middleware: a HEAD request is answered as the GET would be, headers only.

    Monitors and link checkers ask HEAD; FastAPI's routes answer it 405 unless each names it.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Any) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body"):
                    return  # the GET's body is not sent: only its end, empty
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)


def front_page(served: Sequence[tuple[str, str]]) -> str:
    """The page at ``/``: each track served, linked to its own pages, with its one-line summary."""
    items = "".join(f"<li><a href='/{esc(name)}/'>{esc(name)}</a>: {esc(summary)}</li>" for name, summary in served)
    body = f"<ul>{items}</ul>" if served else "<p>No track with pages is installed.</p>"
    return page("Competitions", body, site="podium")
