"""The wmeval pages and API (mounted under ``/wmeval`` by ``podium serve``).

Pages: ``/`` (sign in with the token: a server-side session whose id an HTTP-only cookie keeps, ended by signing
out; then on to your queue, or the dashboard for an operator), ``/queue`` (your items in order, with progress),
``/items/{key}`` (the generated video beside the labelled reference, driven together: start both, play/pause,
scrub, one-frame steps, loop and speed kept from item to item, any view enlarged; the final frames side by side,
the rubric, scores 0-3 by click or key once both videos were watched to the end (at once on an item answered
before), a note, or "can't judge" and why; an answer that cannot be saved is kept in the browser and sent again;
the next item opens at once, and the last one can be reopened to change it: ``annotate.js``), ``/operator``
(progress per annotator, task and team, can't-judge answers to resolve, re-assignment, ingest issues, the audit
trail, the report), ``/operator/flagged`` (every can't-judge answer and note).

API (``Authorization: Bearer TOKEN``, or the pages' session): ``GET /api/queue``, ``GET /api/items/{key}``,
``POST /api/items/{key}/score`` with ``{"score": 0-3, "note": ""}`` or ``{"cant_judge": "reference" | "video" |
"other", "note": ""}`` (exactly one of the two), and
``GET /media/{key}/{generated,reference}.{mp4,png}`` (Starlette's ``FileResponse`` answers Range requests with 206,
which ``<video>`` needs to seek; no ``Last-Modified`` or ``ETag``, whose file times would group videos by ingest
run, so by team).

An annotator reaches only their own items: anyone else's item, and the operator pages, are 404 worded like a missing one
(so as to give away nothing of what exists: docs/design/wmeval.md). Nothing an annotator receives names a team.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Form, Header, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, StrictInt, model_validator
from sqlalchemy import select

from podium.core.accounts import Account
from podium.core.clock import SystemClock
from podium.core.errors import AuthError, NotFoundError
from podium.tracks.wmeval.annotate import (
    cant_judge_pending,
    item_for,
    item_opened,
    media_file,
    next_key,
    progress,
    queue,
    record_cant_judge,
    record_score,
)
from podium.tracks.wmeval.assign import assignments, reassign
from podium.tracks.wmeval.freeze import frozen_since
from podium.tracks.wmeval.ingest import stored_media_root
from podium.tracks.wmeval.kinds import Role
from podium.tracks.wmeval.pages import ItemPage, answer_text, dashboard_body, flagged_body, item_body, queue_body
from podium.tracks.wmeval.report import report_html
from podium.tracks.wmeval.schema import audit_log, issues, teams, users
from podium.tracks.wmeval.store import SESSIONS, authenticate, open_store, transaction
from podium.web.auth import TokenAuth
from podium.web.layout import page as layout_page
from podium.web.sessions import SqlSessionStore
from podium.web.signin import sign_in_answer, sign_in_form, sign_out_form

TOKEN_COOKIE = "podium_wmeval_token"
HERE = Path(__file__).parent
STYLE = "<style>body{max-width:80rem}</style>"  # the item page adds its own (pages.ITEM_STYLE)


class ScoreIn(BaseModel):
    """A score as the API takes it: strict types, so "3" or 3.0 is refused rather than guessed at."""

    model_config = ConfigDict(extra="forbid")
    score: StrictInt | None = None
    cant_judge: str | None = None  # instead of a score: CANT_JUDGE's reasons
    note: str = ""

    @model_validator(mode="after")
    def one_answer(self) -> ScoreIn:
        """A score or a reason for not judging, never both, never neither."""
        if (self.score is None) == (self.cant_judge is None):
            raise ValueError("send a score (0-3) or cant_judge (reference, video or other), exactly one of them")
        return self


def page(title: str, body: str, operator: bool = False) -> str:
    """A wmeval page in the shared layout."""
    nav = (("Dashboard", "/wmeval/operator"),) if operator else (("My queue", "/wmeval/queue"),)
    return layout_page(title, STYLE + body + sign_out_form("/wmeval/signout"), site="podium wmeval", nav=nav)


def wmeval_router(settings: Mapping[str, str]) -> APIRouter:
    """The router over the database ``settings["db"]``."""
    engine = open_store(settings["db"])
    clock = SystemClock()
    store = SqlSessionStore(engine, SESSIONS, clock, transaction, lambda account: account)
    auth: TokenAuth[Account] = TokenAuth(lambda token: authenticate(engine, token), TOKEN_COOKIE, store,
                                         path="/wmeval")  # fmt: skip
    script = (HERE / "annotate.js").read_text("utf-8")
    router = APIRouter()

    def caller(request: Request, authorization: str | None) -> Account:
        # Scripts and tools send a bearer token; the annotator's own page scores through its session (an
        # HTTP-only, SameSite=Strict cookie: its script never sees it). A header that is there but not a bearer
        # token is refused rather than passed over for the cookie.
        return auth.caller(request, authorization)

    def annotator(request: Request, authorization: str | None = None) -> Account:
        return caller(request, authorization)

    def operator(request: Request) -> Account:
        who = auth.page_user(request)
        if who.role != Role.OPERATOR:
            raise NotFoundError("no such page")  # an annotator learns nothing of the operator pages
        return who

    def signed_in(request: Request) -> Account | None:
        try:
            return auth.page_user(request)
        except AuthError:
            return None

    # -- API --------------------------------------------------------------------------------------------------

    @router.get("/api/queue")
    def api_queue(request: Request, authorization: str | None = Header(None)) -> list[dict[str, Any]]:
        who = annotator(request, authorization)
        return [
            {"item": i.key, "task": i.task, "score": i.score, "cant_judge": i.cant_judge} for i in queue(engine, who.id)
        ]

    @router.get("/api/items/{key}")
    def api_item(key: str, request: Request, authorization: str | None = Header(None)) -> dict[str, Any]:
        view = item_for(engine, annotator(request, authorization).id, key)
        return {
            "item": view.key, "task": view.task, "score": view.score, "note": view.note, "cant_judge": view.cant_judge,
            "media": {name: f"/wmeval/media/{view.key}/{name}" for name in view.media},
        }  # fmt: skip

    @router.post("/api/items/{key}/score")
    def api_score(
        key: str, body: ScoreIn, request: Request, authorization: str | None = Header(None)
    ) -> dict[str, Any]:
        who = annotator(request, authorization)
        if body.cant_judge is not None:
            revision = record_cant_judge(engine, clock, who, key, body.cant_judge, body.note)
        else:
            revision = record_score(engine, clock, who, key, body.score, body.note)
        following = next_key(engine, who.id)
        return {
            "item": key,
            "revision": revision,
            "next": f"/wmeval/items/{following}" if following else "/wmeval/queue",
        }

    @router.get("/media/{key}/{name}")
    def media(key: str, name: str, request: Request, authorization: str | None = Header(None)) -> FileResponse:
        who = annotator(request, authorization)
        root = stored_media_root(engine)
        if root is None:
            raise NotFoundError(f"no item {key!r}", fix="open your queue")
        path = media_file(engine, root, who.id, key, name)
        kind = "video/mp4" if name.endswith(".mp4") else "image/png"
        served = FileResponse(
            path, media_type=kind, stat_result=os.stat(path), headers={"Cache-Control": "private, max-age=3600"}
        )
        # the file's time (Last-Modified, and the ETag made of it) would group videos by ingest run, so by team
        del served.headers["last-modified"], served.headers["etag"]
        return served

    # -- pages ------------------------------------------------------------------------------------------------

    def signin_page(problem: str = "") -> str:
        return layout_page("Sign in", sign_in_form("/wmeval/signin", problem), site="podium wmeval")

    @router.get("/", response_class=HTMLResponse)
    def index(request: Request) -> Response:
        who = signed_in(request)
        if who is None:
            return HTMLResponse(signin_page())
        return RedirectResponse("/wmeval/operator" if who.role == Role.OPERATOR else "/wmeval/queue", status_code=303)

    @router.post("/signin")
    def signin(request: Request, token: str = Form("")) -> Response:
        return sign_in_answer(auth, request, token, success="/wmeval/", page=signin_page)

    @router.post("/signout")
    def signout(request: Request) -> Response:
        response = RedirectResponse("/wmeval/", status_code=303)
        auth.sign_out(request, response)
        return response

    @router.get("/static/annotate.js", include_in_schema=False)
    def annotate_script() -> Response:
        return Response(script, media_type="text/javascript", headers={"cache-control": "no-cache"})

    @router.get("/queue", response_class=HTMLResponse)
    def queue_page(request: Request) -> Response:
        who = signed_in(request)
        if who is None:
            return RedirectResponse("/wmeval/", status_code=303)
        body = queue_body(queue(engine, who.id), next_key(engine, who.id))
        return HTMLResponse(page(f"Queue of {who.name}", body, who.role == Role.OPERATOR))

    @router.get("/items/{key}", response_class=HTMLResponse)
    def item_page(key: str, request: Request) -> Response:
        who = signed_in(request)
        if who is None:
            return RedirectResponse("/wmeval/", status_code=303)
        view = item_for(engine, who.id, key)
        item_opened(engine, clock, who, key)  # time on item starts at the first opening
        mine = queue(engine, who.id)
        position = next(n for n, i in enumerate(mine, start=1) if i.key == key)
        done = sum(1 for i in mine if i.answered)
        with engine.connect() as db:
            since = frozen_since(db)
        where = ItemPage(position, len(mine), done, since)
        body = item_body(view, where, answer_text(view.score, view.cant_judge))
        return HTMLResponse(page(f"Item {view.key}", body, who.role == Role.OPERATOR))

    # -- operator ---------------------------------------------------------------------------------------------

    @router.get("/operator", response_class=HTMLResponse)
    def dashboard(request: Request) -> Response:
        if signed_in(request) is None:
            return RedirectResponse("/wmeval/", status_code=303)
        operator(request)
        with engine.connect() as db:
            names = list(db.execute(select(users.c.name).where(users.c.role == Role.ANNOTATOR)).scalars())
            found = db.execute(
                select(teams.c.name, issues.c.kind, issues.c.path, issues.c.detail)
                .outerjoin(teams, teams.c.id == issues.c.team_id)
                .order_by(issues.c.id)
            ).all()
            recent = db.execute(select(audit_log).order_by(audit_log.c.id.desc()).limit(50)).all()
        issue_rows = [(r.name or "GT", r.kind, r.path, r.detail) for r in found]
        audit_rows = [(r.at, r.kind, r.payload) for r in recent]
        body = dashboard_body(progress(engine), cant_judge_pending(engine), names, issue_rows, audit_rows)
        return HTMLResponse(page("Operator dashboard", body, operator=True))

    @router.post("/operator/reassign")
    def reassign_form(request: Request, task: str = Form(...), episode: str = Form(...),
                      annotator: str = Form(...)) -> Response:  # fmt: skip
        operator(request)
        reassign(engine, clock, task.strip(), episode.strip(), annotator)
        return RedirectResponse("/wmeval/operator", status_code=303)

    @router.get("/operator/flagged", response_class=HTMLResponse)
    def flagged(request: Request) -> Response:
        if signed_in(request) is None:
            return RedirectResponse("/wmeval/", status_code=303)
        operator(request)
        body = flagged_body(assignments(engine))
        return HTMLResponse(page("Flagged items and notes", body, operator=True))

    @router.get("/operator/report", response_class=HTMLResponse)
    def report(request: Request) -> str:
        operator(request)
        return report_html(engine)

    @router.get("/api/operator/progress")
    def api_progress(request: Request, authorization: str | None = Header(None)) -> dict[str, Any]:
        who = caller(request, authorization)
        if who.role != Role.OPERATOR:
            raise NotFoundError("no such page")
        done = progress(engine)
        as_lists = {"annotators": done.annotators, "tasks": done.tasks, "teams": done.teams}
        return {part: {name: list(pair) for name, pair in counts.items()} for part, counts in as_lists.items()}

    return router
