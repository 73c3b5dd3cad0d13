"""The dojo's HTTP API and pages (mounted under ``/dojo`` by ``podium serve``).

API (JSON; ``Authorization: Bearer TOKEN`` where a user is needed):

- ``GET  /api/problems`` and ``/api/problems/{slug}``: published problems with their visible terms and
  commitments; after reveal also the salt, the setter program and every term.
- ``POST /api/problems/{slug}/submissions``: ``{"source": "...", "solution": {"method_tag": ...}}`` → a receipt
  (202, ``Location`` the submission's URL, ``X-Submissions-Remaining`` how many more the season's window takes); with
  an ``Idempotency-Key`` header, a repeated post gets the first receipt back and stores nothing.
  Judging happens in the workers (``podium dojo worker``). A source the judge would not admit is refused with its
  reason (400); a source that is not valid Unicode (a lone surrogate), and text no database stores (a lone
  surrogate or a NUL character) anywhere in the solution, are 422; a body over
  ``max_body_bytes`` (twice the largest source a season accepts, plus 64 KiB for JSON escapes and the solution)
  is 413, refused from its ``Content-Length`` before it is read, or as soon as a streamed body passes the limit.
- ``GET  /api/submissions/{id}`` and ``/api/me/submissions`` (``limit`` ≤ 500, ``offset``, ``X-Total-Count``): your
  own submissions. While a problem is not revealed
  you learn the run verdict, its reason and Stage Pass, never Reward Correct or which term differs; the capped
  stderr comes at reveal (docs/rules/dojo-platform.md §2, ``explain.py``).
- The jury's API under ``/api/operator/`` (operators only): ``jury_web.py``.
- ``GET  /api/problems/{slug}/leaderboard``, ``/api/problems/{slug}/tags`` (after reveal: the method tags of the
  Reward Correct submissions as claimed and as counted, with every override), ``/api/problems/{slug}/payloads``
  (after reveal: each Reward Correct submission's literal payload beside its L) and ``/api/seasons/{name}/leaderboard``.
- ``POST /api/clarifications`` ``{"text": "...", "problem": slug?}``: a question to the jury (201);
  ``GET /api/clarifications``: your questions, and the answers and announcements to you or to everyone.
- ``GET  /api/clock``: the server's time and each published problem's next step (freeze, reveal) with the seconds
  left (``contest_clock.py``); pages show the same as live countdowns.
- ``GET  /api/problems/{slug}/stats``: counted submissions, users, Stage Pass and the first to reach it; at reveal
  also Reward Correct, the first solve and the shortest L (``problem_stats.py``).
- ``GET  /api/audit/head``: the audit log's head hash.

JSON values have JSON's types: ``stage_pass`` and ``reward_correct`` are booleans, counts, lengths, scores and
``median_L`` numbers (``null`` where there is none), times UTC strings.

Pages (built in ``pages.py``): ``/`` (problems and season leaderboard links), ``/problems/{slug}`` (the schedule,
the visible terms as a copyable block, the commitments and the rules in words, a submit form; after reveal no
form, but the salt, every term, the setter, the problem's leaderboard and its method tags as tables), ``/me``
(your submissions as a table: verdict, reason and score once published, L, practice, any method-tag override; a
sign-in form where the browser is not signed in, and a sign-out button), ``/scoreboard/{season}`` (the public
board that follows the season: ``scoreboard.py``), ``/operator`` (operators: the queue and the submissions),
``/leaderboards/{season}`` (which
problems it counts and when the others are published). Pages take the token once (the submit or sign-in form) and
start a server-side session whose id an HTTP-only cookie keeps; signing out (``POST /signout``) ends it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from fastapi import APIRouter, Depends, Form, Header, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict, field_validator
from starlette.concurrency import run_in_threadpool
from starlette.types import Message

from podium.core.clock import SystemClock
from podium.core.errors import AuthError, NotFoundError
from podium.core.execution.sandbox import open_sandbox
from podium.core.storage.text import unstorable
from podium.tracks.dojo import pages
from podium.tracks.dojo.clarifications import ask, messages_for
from podium.tracks.dojo.contest_clock import contest_clock
from podium.tracks.dojo.explain import revealed_part, shown_reason
from podium.tracks.dojo.jury import account_history
from podium.tracks.dojo.jury_web import jury_router, require_operator
from podium.tracks.dojo.lifecycle import PUBLISHED, REVEALED_STATES
from podium.tracks.dojo.listing import queue_rows, submission_rows
from podium.tracks.dojo.platform import Dojo, unknown_problem
from podium.tracks.dojo.problem_stats import problem_stats, stats_html
from podium.tracks.dojo.published import BoardVersion
from podium.tracks.dojo.records import JobStatus, Problem, Role, Submission, User
from podium.tracks.dojo.results import (
    problem_leaderboard,
    problem_payloads,
    problem_scores,
    problem_tags,
    season_leaderboard,
)
from podium.tracks.dojo.scoreboard import scoreboard, scoreboard_records
from podium.tracks.dojo.standings import problem_records, season_records
from podium.tracks.dojo.store import audit_head, open_store, transaction
from podium.tracks.dojo.submitting import unknown_submission
from podium.tracks.dojo.users import SESSIONS
from podium.web.auth import TokenAuth
from podium.web.errors import answer, validation_answer
from podium.web.layout import esc
from podium.web.layout import page as layout_page
from podium.web.sessions import SqlSessionStore
from podium.web.signin import sign_in_answer, sign_in_form, sign_out_form

TOKEN_COOKIE = "podium_dojo_token"
NAV = (("Problems", "/dojo/"), ("My submissions", "/dojo/me"))


BODY_MARGIN_BYTES = 64 * 1024


class DisableIn(BaseModel):
    """Why a user is disabled (audited)."""

    model_config = ConfigDict(extra="forbid")
    reason: str


class QuestionIn(BaseModel):
    """A question to the jury, about a problem or the whole contest."""

    model_config = ConfigDict(extra="forbid")
    text: str
    problem: str | None = None


class SubmissionIn(BaseModel):
    """A submission as the API takes it."""

    model_config = ConfigDict(extra="forbid")
    source: str
    solution: dict[str, Any] | None = None

    @field_validator("source")
    @classmethod
    def valid_unicode(cls, value: str) -> str:
        """JSON can carry lone surrogates (an escaped U+D800), which no UTF-8 text holds: refuse them (422).

        A NUL is a byte the source may hold (it is stored as bytes; the judge rejects it with its reason).
        """
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as error:
            raise ValueError(f"source is not valid Unicode: a lone surrogate at character {error.start}") from None
        return value

    @field_validator("solution")
    @classmethod
    def storable(cls, value: Any) -> Any:
        """Refuse a NUL (an escaped U+0000) or a lone surrogate anywhere in the solution (422), before it is stored.

        JSON carries both; PostgreSQL stores neither as text.
        """
        _check_storable(value, "")
        return value


def _check_storable(value: Any, where: str) -> None:
    if isinstance(value, str):
        problem = unstorable(value)
        if problem:
            raise ValueError(f"{where or 'text'} holds {problem}")
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_storable(key, f"{where}.{key!r}" if where else "a key")
            _check_storable(item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_storable(item, f"{where}[{index}]")


class BodyTooLarge(HTTPException):
    """A request body over the limit (an HTTPException, so FastAPI's body reader lets it through unchanged)."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is larger than {limit} bytes; at most {limit} are accepted")
        self.limit = limit


def too_large(limit: int) -> JSONResponse:
    """The 413 answer, in podium's error shape."""
    error = f"the request body is over {limit} bytes; at most {limit} are accepted"
    fix = "a source is at most the season's max_source_bytes; send it as plain JSON"
    return JSONResponse({"error": error, "fix": fix}, status_code=413)


def limited_route(max_body_bytes: Callable[[], int]) -> type[APIRoute]:
    """An ``APIRoute`` whose requests carry at most ``max_body_bytes()`` bytes of body.

    A declared ``Content-Length`` over the limit is answered 413 before anything is read; a body without one
    (chunked) is counted as it arrives and refused once it passes the limit, so the server never holds more.
    A body that fails its model is answered 422 as FastAPI would, even when it holds a lone surrogate.
    """

    class LimitedRoute(APIRoute):
        def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
            handle = super().get_route_handler()

            async def limited(request: Request) -> Response:
                if request.method in ("GET", "HEAD"):
                    return await handle(request)
                limit = await run_in_threadpool(max_body_bytes)  # a database read: not on the event loop
                declared = request.headers.get("content-length")
                if declared is not None and (not declared.isdigit() or int(declared) > limit):
                    return too_large(limit)
                receive, received = request.receive, 0

                async def capped() -> Message:
                    nonlocal received
                    message = await receive()
                    if message["type"] == "http.request":
                        received += len(message.get("body", b""))
                        if received > limit:
                            raise BodyTooLarge(limit)
                    return message

                try:
                    return await handle(Request(request.scope, capped))
                except BodyTooLarge as error:
                    return too_large(error.limit)
                except RequestValidationError as error:
                    # answered here: the app's handler never sees an error raised inside this wrapper
                    return answer(request, validation_answer(error.errors()), 422)  # type: ignore[no-any-return]

            return limited

    return LimitedRoute


def problem_json(problem: Problem) -> dict[str, Any]:
    """What anyone may see of a problem in its current state."""
    shown: dict[str, Any] = {
        "slug": problem.slug,
        "title": problem.title,
        "statement": problem.statement,
        "state": problem.state.value,
        "offset": problem.offset,
        "visible_terms": list(problem.visible_terms),
        "setter_commit": problem.setter_commit,
        "seq_commit": problem.seq_commit,
        "open_at": problem.open_at,
        "freeze_at": problem.freeze_at,
        "reveal_at": problem.reveal_at,
        "freeze_started_at": problem.freeze_started_at,
    }
    if problem.state in REVEALED_STATES:
        shown |= {
            "salt_hex": problem.salt_hex,
            "setter_source": problem.setter_source.decode("utf-8"),
            "terms": list(problem.terms or ()),
            "revealed_at": problem.revealed_at,
        }
    return shown


def version_json(version: BoardVersion) -> dict[str, Any]:
    """One published version of a board: when, why, which rows it took off, and the board itself."""
    return {
        "version": version.version,
        "published_at": version.at,
        "reason": version.reason,
        "removed": list(version.removed),
        "leaderboard": list(version.records),
    }


def submission_json(submission: Submission, problem: Problem) -> dict[str, Any]:
    """A submission as its author may see it."""
    shown: dict[str, Any] = {
        "id": submission.id,
        "problem": problem.slug,
        "solver_hash": submission.solver_hash,
        "length": submission.length,
        "method_tag": submission.method_tag,
        "tag_override": submission.tag_override,  # why the judge ignored the claimed tag (it counts as unspecified)
        "counted_tag": submission.counted_tag,
        "created_at": submission.created_at,
        "practice": submission.practice,
        "status": submission.status.value,
        "verdict": submission.verdict,
        "reason": shown_reason(submission),  # from its own code and output only (explain.py)
        "stage_pass": submission.stage_pass,
    }
    if problem.state in REVEALED_STATES:
        shown |= revealed_part(submission)
    return shown


def dojo_router(settings: Mapping[str, str]) -> APIRouter:
    """The router over the database ``settings["db"]``."""
    platform = Dojo(open_store(settings["db"]), SystemClock(), lambda: open_sandbox())

    def max_body_bytes() -> int:
        return 2 * platform.max_source_bytes() + BODY_MARGIN_BYTES

    router = APIRouter(route_class=limited_route(max_body_bytes))
    to_user = User.from_account
    store = SqlSessionStore(platform.engine, SESSIONS, platform.clock, transaction, to_user)
    auth = TokenAuth(platform.authenticate, TOKEN_COOKIE, store, path="/dojo")
    caller = Depends(auth.api_user)

    def published(slug: str) -> Problem:
        problem = platform.problem(slug)
        if problem.state not in PUBLISHED:  # as if it did not exist: a draft's name is a secret too
            raise unknown_problem(slug)
        return problem

    def revealed(slug: str, what: str) -> Problem:
        problem = published(slug)
        if problem.state not in REVEALED_STATES:  # the problem is public; what is asked for is not there yet
            raise NotFoundError(f"problem {slug!r} is not revealed yet; its {what} published at reveal")
        return problem

    def own_submissions(user_id: int) -> list[dict[str, Any]]:
        mine = platform.submissions(user_id=user_id)
        by_id = platform.problems_by_id(s.problem_id for s in mine)
        return [submission_json(s, by_id[s.problem_id]) for s in mine]

    @router.get("/api/problems")
    def list_problems() -> list[dict[str, Any]]:
        return [problem_json(p) for p in platform.problems() if p.state in PUBLISHED]

    @router.get("/api/problems/{slug}")
    def get_problem(slug: str) -> dict[str, Any]:
        return problem_json(published(slug))

    @router.post("/api/problems/{slug}/submissions", status_code=202)
    def post_submission(
        slug: str, body: SubmissionIn, response: Response, user: User = caller,
        idempotency_key: str | None = Header(None),
    ) -> dict[str, Any]:  # fmt: skip
        published(slug)  # a hidden problem is not found, before the platform would name its state
        solution = json.dumps(body.solution).encode() if body.solution is not None else None
        receipt = platform.submit(user, slug, body.source.encode("utf-8"), solution, idempotency_key)
        response.headers["Location"] = f"/dojo/api/submissions/{receipt.submission_id}"  # where its verdict appears
        if receipt.remaining is not None:  # how many more the season's window takes now
            response.headers["X-Submissions-Remaining"] = str(receipt.remaining)
        return {
            "id": receipt.submission_id,
            "solver_hash": receipt.solver_hash,
            "length": receipt.length,
            "created_at": receipt.created_at,
            "practice": receipt.practice,
            "method_tag": receipt.method_tag,
            "warnings": [receipt.warning] if receipt.warning else [],
        }

    @router.get("/api/submissions/{submission_id}")
    def get_submission(submission_id: int, user: User = caller) -> dict[str, Any]:
        submission = platform.submission(submission_id)
        if submission.user_id != user.id:  # worded as an unknown id: no hint that it exists
            raise unknown_submission(submission_id)
        return submission_json(submission, platform.problem_by_id(submission.problem_id))

    @router.get("/api/me/submissions")
    def my_submissions(
        response: Response, user: User = caller, limit: int = Query(500, ge=1, le=500), offset: int = Query(0, ge=0)
    ) -> list[dict[str, Any]]:
        mine = own_submissions(user.id)
        response.headers["X-Total-Count"] = str(len(mine))
        return mine[offset : offset + limit]

    @router.post("/api/clarifications", status_code=201)
    def post_question(body: QuestionIn, user: User = caller) -> dict[str, Any]:
        return ask(platform, user, body.text, body.problem).json()

    @router.get("/api/clarifications")
    def get_messages(user: User = caller) -> list[dict[str, Any]]:
        return [m.json() for m in messages_for(platform, user)]

    @router.get("/api/clock")
    def get_clock() -> dict[str, Any]:
        return contest_clock(platform)

    @router.get("/api/problems/{slug}/stats")
    def get_problem_stats(slug: str) -> dict[str, Any]:
        return problem_stats(platform, published(slug))

    @router.get("/api/problems/{slug}/leaderboard")
    def get_problem_leaderboard(slug: str) -> list[dict[str, Any]]:
        problem = revealed(slug, "leaderboard is")
        return problem_records(problem_leaderboard(platform, problem))

    @router.get("/api/problems/{slug}/leaderboard/versions")
    def get_problem_board_versions(slug: str) -> list[dict[str, Any]]:
        return [version_json(v) for v in platform.board_versions(revealed(slug, "leaderboard is"))]

    @router.get("/api/problems/{slug}/tags")
    def get_problem_tags(slug: str) -> dict[str, Any]:
        return problem_tags(platform, revealed(slug, "method tags are"))

    @router.get("/api/problems/{slug}/payloads")
    def get_problem_payloads(slug: str) -> list[dict[str, Any]]:
        return problem_payloads(platform, revealed(slug, "literal payloads are"))

    @router.get("/api/seasons/{name}/leaderboard")
    def get_season_leaderboard(name: str) -> Any:
        return season_records(season_leaderboard(platform, name))

    @router.get("/api/seasons/{name}/scoreboard")
    def get_scoreboard(
        request: Request, name: str, live: bool = False, authorization: str | None = Header(None)
    ) -> list[dict[str, Any]]:
        if live:  # the live board scores problems not revealed yet: operators only
            require_operator(auth.api_user(request, authorization))
        return scoreboard_records(scoreboard(platform, name, live=live))

    @router.get("/api/users")
    def list_users(user: User = caller) -> list[dict[str, Any]]:
        require_operator(user)
        history = account_history(platform)
        return [{"name": e.name, "role": e.role, "added": e.created_at, "disabled": e.disabled_at,
                 "history": history.get(e.name, [])} for e in platform.users.entries()]  # fmt: skip

    @router.post("/api/users/{name}/disable")
    def disable_user(name: str, body: DisableIn, user: User = caller) -> dict[str, Any]:
        require_operator(user)
        return {"user": name, "disabled": True, "sessions_ended": platform.users.disable(name, body.reason)}

    @router.post("/api/users/{name}/enable")
    def enable_user(name: str, user: User = caller) -> dict[str, Any]:
        require_operator(user)
        platform.users.enable(name)
        return {"user": name, "disabled": False}

    @router.post("/api/users/{name}/rotate-token")
    def rotate_token(name: str, user: User = caller) -> dict[str, str]:
        require_operator(user)
        return {"user": name, "token": platform.users.rotate_token(name)}

    @router.get("/api/audit/head")
    def get_audit_head() -> dict[str, str]:
        with platform.engine.connect() as db:
            return {"head": audit_head(db)}

    router.include_router(jury_router(platform, auth, open_sandbox, page))

    # -- pages ------------------------------------------------------------------------------------------------

    @router.get("/", response_class=HTMLResponse)
    def index_page() -> str:
        shown = [p for p in platform.problems() if p.state in PUBLISHED]
        now = platform.clock.now()
        rows = "".join(
            f"<tr><td><a href='problems/{esc(p.slug)}'>{esc(p.slug)}</a></td><td>{esc(p.title)}</td>"
            f"<td>{p.state.value}</td><td>{pages.when_and_left(p.freeze_started_at or p.freeze_at, now)}</td>"
            f"<td>{pages.when_and_left(p.revealed_at or p.reveal_at, now)}</td></tr>"
            for p in shown
        )
        by_id = platform.seasons_by_id()
        seasons = sorted({by_id[p.season_id].name for p in shown})
        links = " · ".join(f"<a href='leaderboards/{esc(name)}'>{esc(name)}</a> (<a href='scoreboard/{esc(name)}'>"
                           "scoreboard</a>)" for name in seasons)  # fmt: skip
        listing = (
            "<table><thead><tr><th>problem</th><th>title</th><th>state</th><th>freeze</th><th>reveal</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>"
            if shown
            else "<p class='note'>No problem is open yet.</p>"
        )
        return page("Problems", listing + (f"<h2>Season leaderboards</h2><p>{links}</p>" if links else ""))

    @router.get("/problems/{slug}", response_class=HTMLResponse)
    def problem_page(slug: str) -> str:
        problem = published(slug)
        revealed: dict[str, Any] | None = None
        if problem.state in REVEALED_STATES:  # the setter, the problem's final leaderboard and its method tags
            versions = platform.board_versions(problem)  # read once: the board served is the newest
            revealed = {
                "leaderboard": (
                    list(versions[-1].records) if versions else problem_records(problem_leaderboard(platform, problem))
                ),
                "setter": problem.setter_source.decode("utf-8"),
                "versions": [version_json(v) for v in versions],
                "tags": problem_tags(platform, problem),
                "payloads": problem_payloads(platform, problem),
            }
        body = pages.problem_body(problem, platform.season_of(problem).rules, revealed, platform.clock.now())
        body += stats_html(problem_stats(platform, problem))
        said = [m for m in messages_for(platform, None) if m.problem in (None, slug)]
        body += pages.messages_html(said, "Clarifications and announcements") if said else ""
        return page(f"{problem.title} ({slug})", body)

    @router.post("/submit/{slug}")
    def submit_form(
        request: Request, slug: str, source: str = Form(...), method_tag: str = Form(""), token: str = Form("")
    ) -> RedirectResponse:
        response = RedirectResponse("../me", status_code=303)
        user = auth.sign_in(request, response, token) if token else auth.page_user(request)
        published(slug)
        solution = json.dumps({"method_tag": method_tag}).encode() if method_tag else None
        platform.submit(user, slug, source.encode("utf-8"), solution)
        return response

    @router.post("/clarifications")
    def ask_form(request: Request, text: str = Form(""), problem: str = Form("")) -> RedirectResponse:
        ask(platform, auth.page_user(request), text, problem or None)
        return RedirectResponse("me#messages", status_code=303)

    @router.get("/operator", response_class=HTMLResponse)
    def operator_page(
        request: Request, problem: str = "", user: str = "", status: str = ""
    ) -> str:  # fmt: skip
        try:
            who = auth.page_user(request)
        except AuthError:
            return sign_in_page("")
        if who.role is not Role.OPERATOR:
            raise NotFoundError("no such page")  # nobody else learns the queue exists
        chosen = (JobStatus(status),) if status in {s.value for s in JobStatus} else None
        listed = submission_rows(platform, problem=problem or None, user=user or None, status=chosen)
        said = ", ".join(f"{k} {v}" for k, v in (("problem", problem), ("user", user), ("status", status)) if v)
        body = pages.operator_body(queue_rows(platform), listed, f" ({said})" if said else "")
        return page("Operator", body + pages.jury_questions_html(messages_for(platform, who)))

    @router.get("/me", response_class=HTMLResponse)
    def my_page(request: Request) -> str:
        try:
            user = auth.page_user(request)
        except AuthError:  # a new browser, or a session that has ended: sign in here
            return sign_in_page("")
        mine = platform.submissions(user_id=user.id)
        by_id = platform.problems_by_id(s.problem_id for s in mine)
        scores = {
            scored.submission_id: scored.score
            for problem in by_id.values()
            if problem.state in REVEALED_STATES
            for scored in problem_scores(platform, problem)
        }
        rows = [submission_json(s, by_id[s.problem_id]) for s in mine]
        said = pages.messages_html(messages_for(platform, user), "Messages") + pages.ask_form()
        return page(f"Submissions of {user.name}", pages.me_table(rows, scores) + said + sign_out_form("signout"))

    @router.get("/me/submission", response_class=HTMLResponse)
    def my_submission_page(request: Request, id: int) -> str:  # noqa: A002 -- the link's field
        try:
            user = auth.page_user(request)
        except AuthError:
            return sign_in_page("")
        submission = platform.submission(id)
        if submission.user_id != user.id:  # worded as an unknown id: no hint that it exists
            raise unknown_submission(id)
        shown = submission_json(submission, platform.problem_by_id(submission.problem_id))
        return page(f"Submission {id}", pages.own_submission_body(shown, submission.source.decode("utf-8", "replace")))

    @router.post("/me", response_model=None)
    def sign_in(request: Request, token: str = Form("")) -> Response:
        return sign_in_answer(auth, request, token, success="me", page=sign_in_page)

    @router.post("/signout")
    def sign_out(request: Request) -> RedirectResponse:
        response = RedirectResponse("me", status_code=303)
        auth.sign_out(request, response)
        return response

    @router.get("/scoreboard/{season}", response_class=HTMLResponse)
    def scoreboard_page(season: str, request: Request) -> str:
        records = scoreboard_records(scoreboard(platform, season))
        body = pages.scoreboard_body(season, platform.problems(season), records, platform.clock.now())
        try:
            viewer: User | None = auth.page_user(request)
        except AuthError:
            viewer = None
        if viewer is not None and viewer.role is Role.OPERATOR:  # the live board beside the public one
            live = scoreboard_records(scoreboard(platform, season, live=True))
            body += (
                "<h2 id='live'>Live board (operators only: every problem scored now)</h2>"
                + pages.leaderboard_table(live, empty="Nobody has a counted submission yet.")
            )
        return page(f"Scoreboard of {season}", body)

    @router.get("/leaderboards/{season}", response_class=HTMLResponse)
    def leaderboard_page(season: str) -> str:
        records = season_records(season_leaderboard(platform, season))
        return page(f"Season {season}", pages.season_body(season, platform.problems(season), records))

    return router


def sign_in_page(problem: str) -> str:
    """The page that asks for an API token (a session starts once it works)."""
    return page("Sign in", sign_in_form("me", problem))


def page(title: str, body: str) -> str:
    """A whole page in the shared layout, with the dojo's navigation."""
    return layout_page(title, body, site="Sequence Dojo", nav=NAV)
