"""The jury's HTTP API and pages (operators only), mounted with the dojo's router under ``/dojo``.

API (``Authorization: Bearer TOKEN`` of an operator; anyone else gets 403 with the fix):

- ``GET  /api/operator/queue``: the submissions waiting or being judged, in claim order.
- ``GET  /api/operator/submissions?problem=&user=&status=&limit=&offset=``: submissions in id order, a page at
  a time (``limit`` at most 500; the ``X-Total-Count`` header gives the count of all that match).
- ``GET  /api/operator/submissions/{id}``: one submission whole (``jury.submission_detail``): source, diff with
  the author's previous, verdict and reason, run figures, stderr, the same source sent by other users, audit.
- ``POST /api/operator/submissions/{id}/skip`` ``{"reason": "..."}``: end a queued or running submission.
- ``POST /api/operator/problems/{slug}/rejudge`` ``{"submission": id?, "preview": bool}``: queue the problem's
  submissions (or one) again; with ``preview`` judge them again now and store nothing, listing what would change.
- ``POST /api/operator/problems/{slug}/open|freeze|reveal``: the lifecycle steps (reveal verifies first).
- ``GET  /api/operator/problems/{slug}/stats``: the statistics with Reward Correct and the verdicts, at any time.
- ``GET  /api/operator/problems/{slug}/copies``: equal sources, equal normalised sources and near pairs across
  users (``similarity.py``).
- ``GET  /api/operator/seasons/{name}/results?format=json|tsv``: every submission of the season, one row each.
- ``GET  /api/operator/clarifications?unanswered=true``: every question, answer and announcement (or the questions
  waiting); ``POST /api/operator/clarifications/{id}/answer`` ``{"text", "to_all"}``; ``POST
  /api/operator/announcements`` ``{"text", "to"?, "problem"?}`` (``clarifications.py``).
- ``GET  /api/operator/audit``: the whole audit log with its chain hashes.

Pages (operators signed in; 404 for anyone else, as if they did not exist): ``/operator/submission?id=N`` and
``/operator/copies?problem=SLUG``, reached from the forms on ``/operator``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Depends, Form, Query, Request, Response
from fastapi.responses import HTMLResponse, PlainTextResponse, RedirectResponse
from pydantic import BaseModel, ConfigDict

from podium.core.errors import AuthError, NotFoundError, PermissionDenied
from podium.core.execution.sandbox import Sandbox
from podium.tracks.dojo import jury
from podium.tracks.dojo.clarifications import MessageKind, announce, answer, messages_for
from podium.tracks.dojo.listing import queue_rows, submission_rows
from podium.tracks.dojo.pages import cell
from podium.tracks.dojo.platform import Dojo
from podium.tracks.dojo.problem_stats import problem_stats
from podium.tracks.dojo.records import JobStatus, Role, User
from podium.web.auth import TokenAuth
from podium.web.layout import esc, table

MAX_PAGE = 500
SIGN_IN_FIRST = "<p class='note'>Sign in on <a href='../me'>My submissions</a> first.</p>"


class SkipIn(BaseModel):
    """Why a submission is skipped (audited)."""

    model_config = ConfigDict(extra="forbid")
    reason: str


class AnswerIn(BaseModel):
    """The jury's answer to a question: to its asker, or to everyone."""

    model_config = ConfigDict(extra="forbid")
    text: str
    to_all: bool = False


class AnnouncementIn(BaseModel):
    """An announcement to everyone, or to one user (``to``), about a problem or the whole contest."""

    model_config = ConfigDict(extra="forbid")
    text: str
    to: str | None = None
    problem: str | None = None


class RejudgeIn(BaseModel):
    """Which submissions to judge again, and whether only to preview it."""

    model_config = ConfigDict(extra="forbid")
    submission: int | None = None
    preview: bool = False


def require_operator(user: User) -> User:
    """``user`` if an operator, else 403."""
    if user.role is not Role.OPERATOR:
        raise PermissionDenied("only operators may do this", fix="sign in with an operator's token")
    return user


def jury_router(
    platform: Dojo, auth: TokenAuth[User], sandbox: Callable[[], Sandbox], page: Callable[[str, str], str]
) -> APIRouter:
    """The jury's routes over ``platform``; ``page`` wraps a body in the dojo's layout."""
    router = APIRouter()

    def operator(user: User = Depends(auth.api_user)) -> User:  # noqa: B008 -- FastAPI's dependency
        return require_operator(user)

    jury_member = Depends(operator)

    @router.get("/api/operator/queue")
    def get_queue(_: User = jury_member) -> list[dict[str, Any]]:
        """The submissions waiting or being judged, in claim order, with their wait."""
        return queue_rows(platform)

    @router.get("/api/operator/submissions")
    def list_submissions(
        response: Response, problem: str = "", user: str = "", status: str = "",
        limit: int = Query(100, ge=1, le=MAX_PAGE), offset: int = Query(0, ge=0), _: User = jury_member,
    ) -> list[dict[str, Any]]:  # fmt: skip
        """Submissions in id order, a page at a time (X-Total-Count: all that match)."""
        statuses = (JobStatus(status),) if status else None
        rows = submission_rows(platform, problem=problem or None, user=user or None, status=statuses)
        response.headers["X-Total-Count"] = str(len(rows))
        return rows[offset : offset + limit]

    @router.get("/api/operator/submissions/{submission_id}")
    def get_submission(submission_id: int, _: User = jury_member) -> dict[str, Any]:
        """One submission whole: source, diff with the previous, reason, run figures, stderr, audit."""
        return jury.submission_detail(platform, submission_id)

    @router.post("/api/operator/submissions/{submission_id}/skip")
    def skip(submission_id: int, body: SkipIn, _: User = jury_member) -> dict[str, Any]:
        """End a queued or running submission as INTERNAL_ERROR, with the reason (audited)."""
        done = platform.skip(submission_id, body.reason)
        return {"id": done.id, "verdict": done.verdict, "reason": done.reason}

    @router.post("/api/operator/problems/{slug}/rejudge")
    def rejudge(slug: str, body: RejudgeIn, _: User = jury_member) -> dict[str, Any]:
        """Queue the problem's submissions (or one) again; with preview, judge again now and store nothing."""
        if body.preview:
            return jury.rejudge_preview(platform, sandbox(), platform.problem(slug), body.submission)
        return {"problem": slug, "queued": platform.rejudge(slug, submission_id=body.submission)}

    @router.post("/api/operator/problems/{slug}/{step}")
    def lifecycle(slug: str, step: str, _: User = jury_member) -> dict[str, Any]:
        """Open, freeze or reveal a problem (reveal verifies first)."""
        if step == "open":
            platform.open(slug)
        elif step == "freeze":
            platform.freeze(slug)
        elif step == "reveal":
            platform.reveal(slug)
        else:
            raise NotFoundError(f"no step {step!r}", fix="open, freeze, reveal or rejudge")
        return {"problem": slug, "state": platform.problem(slug).state.value}

    @router.get("/api/operator/problems/{slug}/stats")
    def get_stats(slug: str, _: User = jury_member) -> dict[str, Any]:
        """The problem's statistics with Reward Correct and the verdicts counted, at any time."""
        return problem_stats(platform, platform.problem(slug), for_jury=True)

    @router.get("/api/operator/problems/{slug}/copies")
    def get_copies(slug: str, _: User = jury_member) -> dict[str, Any]:
        """Equal sources, equal normalised sources and near pairs across users."""
        return jury.copies(platform, platform.problem(slug))

    @router.get("/api/operator/seasons/{name}/results", response_model=None)
    def get_results(name: str, format: str = "json", _: User = jury_member) -> Any:  # noqa: A002 -- the API's word
        """Every submission of the season, one row each, as JSON or TSV."""
        platform.season(name)  # an unknown season is a 404, not an empty file
        rows = jury.results(platform, name)
        if format == "tsv":
            return PlainTextResponse(jury.results_tsv(rows), media_type="text/tab-separated-values; charset=utf-8")
        if format != "json":
            raise NotFoundError(f"no format {format!r}", fix="format=json or format=tsv")
        return rows

    @router.get("/api/operator/clarifications")
    def get_clarifications(unanswered: bool = False, user: User = jury_member) -> list[dict[str, Any]]:
        """Every question, answer and announcement, or the questions waiting."""
        said = messages_for(platform, user)
        return [m.json() for m in said if not unanswered or (m.kind is MessageKind.QUESTION and not m.answered)]

    @router.post("/api/operator/clarifications/{question_id}/answer", status_code=201)
    def post_answer(question_id: int, body: AnswerIn, user: User = jury_member) -> dict[str, Any]:
        """Answer a question, to its asker or to everyone (audited)."""
        return answer(platform, user, question_id, body.text, to_all=body.to_all).json()

    @router.post("/api/operator/announcements", status_code=201)
    def post_announcement(body: AnnouncementIn, user: User = jury_member) -> dict[str, Any]:
        """Announce to everyone or to one user (audited)."""
        return announce(platform, user, body.text, to=body.to, problem=body.problem).json()

    @router.get("/api/operator/audit")
    def get_audit(_: User = jury_member) -> list[dict[str, Any]]:
        """The whole audit log, with each entry's chain hashes."""
        return jury.audit_export(platform)

    # -- pages ------------------------------------------------------------------------------------------------

    def page_operator(request: Request) -> User | None:
        try:
            user = auth.page_user(request)
        except AuthError:
            return None
        if user.role is not Role.OPERATOR:
            raise NotFoundError("no such page")  # nobody else learns these pages exist
        return user

    @router.get("/operator/submission", response_class=HTMLResponse)
    def submission_page(request: Request, id: int) -> str:  # noqa: A002 -- the form's field
        if page_operator(request) is None:
            return page("Sign in", SIGN_IN_FIRST)
        return page(f"Submission {id}", submission_body(jury.submission_detail(platform, id)))

    @router.get("/operator/copies", response_class=HTMLResponse)
    def copies_page(request: Request, problem: str) -> str:
        if page_operator(request) is None:
            return page("Sign in", SIGN_IN_FIRST)
        return page(f"Copies in {problem}", copies_body(jury.copies(platform, platform.problem(problem))))

    @router.post("/operator/answer")
    def answer_form(
        request: Request, question: int = Form(...), text: str = Form(""), to_all: str = Form("")
    ) -> RedirectResponse:
        answer(platform, _page_jury(request), question, text, to_all=bool(to_all))
        return RedirectResponse("../operator#questions", status_code=303)

    @router.post("/operator/announce")
    def announce_form(
        request: Request, text: str = Form(""), to: str = Form(""), problem: str = Form("")
    ) -> RedirectResponse:
        announce(platform, _page_jury(request), text, to=to or None, problem=problem or None)
        return RedirectResponse("../operator#questions", status_code=303)

    def _page_jury(request: Request) -> User:
        user = page_operator(request)
        if user is None:
            raise AuthError("sign in first", fix="sign in on My submissions with an operator's token")
        return user

    @router.get("/operator/export/results", response_model=None)
    def export_results_page(request: Request, season: str, format: str = "tsv") -> Any:  # noqa: A002
        if page_operator(request) is None:
            return HTMLResponse(page("Sign in", SIGN_IN_FIRST))
        answer = get_results(season, format)
        if isinstance(answer, Response):
            answer.headers["Content-Disposition"] = f'attachment; filename="{season}-results.tsv"'
        return answer

    @router.get("/operator/export/audit", response_model=None)
    def export_audit_page(request: Request) -> Any:
        if page_operator(request) is None:
            return HTMLResponse(page("Sign in", SIGN_IN_FIRST))
        return jury.audit_export(platform)

    return router


def _shown(value: Any) -> str:
    """A value for people: yes/no, seconds and MiB to the millisecond, nothing for none."""
    if isinstance(value, float):
        return f"{value:.3f}"
    return cell(value)


def _pre(text: str) -> str:
    return f"<pre class='source'>{esc(text)}</pre>"


def submission_body(detail: dict[str, Any]) -> str:
    """One submission for the jury: facts, run figures, source, diff with the previous one, stderr, audit."""
    facts = [
        [name, _shown(detail[name])]
        for name in (
            "problem",
            "problem_state",
            "user",
            "created_at",
            "status",
            "attempts",
            "verdict",
            "reason",
            "stage_pass",
            "reward_correct",
            "length",
            "method_tag",
            "tag_override",
            "practice",
            "backend",
            "judge_version",
            "solver_hash",
            "normalised_hash",
        )  # fmt: skip
    ]
    run = [[name, _shown(value)] for name, value in detail["run"].items()]
    others = ", ".join(f"#{s['id']} ({s['user']})" for s in detail["same_hash_other_users"])
    previous = detail["previous"]
    audit = [[str(e["id"]), e["at"], e["kind"]] for e in detail["audit"]]
    return (
        table(("field", "value"), facts)
        + (f"<p class='warn'>The same source was sent by other users: {esc(others)}.</p>" if others else "")
        + "<h2>Run</h2>" + table(("figure", "value"), run)
        + "<h2>Source</h2>" + _pre(detail["source"])
        + (f"<h2>Changes since #{previous['id']}</h2>" + _pre(previous["diff"] or "(the same source)")
           if previous else "<p class='note'>The author's first submission to this problem.</p>")
        + "<h2>Stderr (its last bytes)</h2>" + _pre(detail["stderr"] or "(none)")
        + "<h2>Audit entries</h2>" + table(("entry", "at", "kind"), audit)
    )  # fmt: skip


def copies_body(found: dict[str, Any]) -> str:
    """The problem's likely copies: equal sources, equal normalised sources, near pairs."""

    def groups(rows: list[dict[str, Any]]) -> str:
        body = [[g["hash"][:12], ", ".join(f"#{s['id']} {s['user']} ({s['verdict']})" for s in g["submissions"])]
                for g in rows]  # fmt: skip
        return table(("hash", "submissions"), body) if rows else "<p class='note'>None.</p>"

    near = [[f"#{p['a']['id']} {p['a']['user']}", f"#{p['b']['id']} {p['b']['user']}", f"{p['similarity']:.2f}"]
            for p in found["near"]]  # fmt: skip
    return (
        "<p class='note'>A flag is a reason to look at both sources, not a verdict: short solutions of one sequence "
        "converge. Disqualifying is <code>podium dojo disqualify</code>, audited.</p>"
        + "<h2>The same source</h2>" + groups(found["same_source"])
        + "<h2>The same after names, spacing and comments are normalised</h2>" + groups(found["same_normalised"])
        + f"<h2>Near (similarity at least {found['near_threshold']})</h2>"
        + (table(("one", "other", "similarity"), near) if near else "<p class='note'>None.</p>")
    )  # fmt: skip
