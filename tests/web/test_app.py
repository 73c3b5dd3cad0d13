"""The app factory mounts the tracks it is given, with podium's error answers."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.testclient import TestClient

from podium.core.errors import NotFoundError
from podium.core.registry import Track
from podium.web.app import create_app


def test_given_tracks_are_mounted_with_the_error_handler() -> None:
    def router(settings: Any) -> APIRouter:
        made = APIRouter()

        @made.get("/hello")
        def hello() -> dict[str, str]:
            return {"db": settings["db"]}

        @made.get("/missing")
        def missing() -> None:
            raise NotFoundError("no such thing", fix="look elsewhere")

        return made

    app = create_app({"db": "sqlite://"}, {"demo": Track("demo", "a demo", lambda: None, router)})
    with TestClient(app) as client:
        assert client.get("/demo/hello").json() == {"db": "sqlite://"}
        answer = client.get("/demo/missing")
        assert (answer.status_code, answer.json()) == (404, {"error": "no such thing", "fix": "look elsewhere"})
