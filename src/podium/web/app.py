"""The ``podium serve`` application: every installed track that has a web part mounts its router.

A track's ``web_router(settings)`` gets the server's settings (``db``: a database URL) and returns a FastAPI
``APIRouter``. A track that cannot be loaded is named on stderr and left out; the others are served. The factory
adds a health check, a page at ``/`` that lists the tracks served and links to each, and answers podium's errors
as JSON ``{"error", "fix"}`` with the status ``podium.web.errors`` gives each branch of the error tree (401, 403,
404, 409, 400, 503).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

from podium.core.errors import DependencyError, PodiumError
from podium.core.registry import Track, load_tracks
from podium.web.errors import http_status
from podium.web.layout import esc, page


def create_app(settings: Mapping[str, str], tracks: Mapping[str, Track] | None = None) -> Any:
    """The ASGI app with every track's router under ``/<track>``: the installed tracks, or ``tracks`` if given.

    ``tracks`` serves a track that is not installed as an entry point yet (a test of a track in development, an
    embedding application), with the same error handling as ``podium serve``.
    """
    try:
        from fastapi import FastAPI, Request
        from fastapi.responses import HTMLResponse, JSONResponse
    except ModuleNotFoundError as error:
        raise DependencyError("the web server needs FastAPI", fix="pip install 'podium[web]'") from error

    app = FastAPI(title="podium", docs_url="/api/docs")

    @app.get("/healthz")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.exception_handler(PodiumError)
    def podium_error(_request: Request, error: PodiumError) -> JSONResponse:
        return JSONResponse({"error": error.message, "fix": error.fix}, status_code=http_status(error))

    if tracks is None:
        loaded = load_tracks()
        for failure in loaded.failures.values():  # said once at start, not as a silent 404 on every request
            print(f"warning: not serving it: {failure.describe()} (fix: {failure.fix})", file=sys.stderr)
        tracks = loaded.tracks
    served = [track for track in tracks.values() if track.web_router is not None]
    for track in served:
        assert track.web_router is not None  # for mypy: filtered above
        app.include_router(track.web_router(settings), prefix=f"/{track.name}")

    @app.get("/", response_class=HTMLResponse)
    def index() -> str:
        return front_page([(track.name, track.summary) for track in served])

    return app


def front_page(served: Sequence[tuple[str, str]]) -> str:
    """The page at ``/``: each track served, linked to its own pages, with its one-line summary."""
    items = "".join(f"<li><a href='/{esc(name)}/'>{esc(name)}</a>: {esc(summary)}</li>" for name, summary in served)
    body = f"<ul>{items}</ul>" if served else "<p>No track with pages is installed.</p>"
    return page("Competitions", body, site="podium")
