"""The ``podium serve`` application: every installed track that has a web part mounts its router.

A track's ``web_router(settings)`` gets the server's settings (``db``: a database URL) and returns a FastAPI
``APIRouter``. The factory adds a health check and maps podium's errors to JSON with an HTTP status (409 for
errors without a closer match, such as lifecycle and permission errors).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from podium.core.errors import ConfigError, DependencyError, InputError, PodiumError
from podium.core.registry import discover_tracks

STATUS_OF: tuple[tuple[type[PodiumError], int], ...] = (
    (InputError, 404),
    (ConfigError, 400),
    (DependencyError, 503),
)


def create_app(settings: Mapping[str, str]) -> Any:
    """The ASGI app with every track's router under ``/<track>``."""
    try:
        from fastapi import FastAPI, Request
        from fastapi.responses import JSONResponse
    except ModuleNotFoundError as error:
        raise DependencyError("the web server needs FastAPI", fix="pip install 'podium[web]'") from error

    app = FastAPI(title="podium", docs_url="/api/docs")

    @app.get("/healthz")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.exception_handler(PodiumError)
    def podium_error(_request: Request, error: PodiumError) -> JSONResponse:
        status = next((code for kind, code in STATUS_OF if isinstance(error, kind)), 409)
        return JSONResponse({"error": error.message, "fix": error.fix}, status_code=status)

    for track in discover_tracks().values():
        if track.web_router is not None:
            app.include_router(track.web_router(settings), prefix=f"/{track.name}")
    return app
