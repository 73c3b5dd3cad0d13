"""The contest clock: the server's time and, for each published problem, its next step and how long until it.

Pages show the same as live countdowns (``podium.web.layout.countdown``); this is it for programs and the
command line, so that a client never has to trust its own clock.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from podium.core.clock import parse_utc, utc_text
from podium.tracks.dojo.lifecycle import PUBLISHED, ProblemState
from podium.tracks.dojo.records import Problem

if TYPE_CHECKING:
    from podium.tracks.dojo.platform import Dojo

NEXT_STEP = {ProblemState.OPEN: ("freeze", "freeze_at"), ProblemState.FROZEN: ("reveal", "reveal_at")}


def next_step(problem: Problem, now: datetime) -> dict[str, Any] | None:
    """The problem's next scheduled step and the seconds left (None when none is scheduled)."""
    step = NEXT_STEP.get(problem.state)
    if step is None or getattr(problem, step[1]) is None:
        return None
    at = getattr(problem, step[1])
    return {"step": step[0], "at": at, "seconds_left": max(0.0, round((parse_utc(at) - now).total_seconds(), 1))}


def contest_clock(dojo: Dojo, season: str | None = None) -> dict[str, Any]:
    """The server's time and every published problem's state and next step."""
    now = dojo.clock.now()
    return {
        "now": utc_text(now),
        "problems": [
            {"problem": p.slug, "state": p.state.value, "next": next_step(p, now)}
            for p in dojo.problems(season)
            if p.state in PUBLISHED
        ],
    }
