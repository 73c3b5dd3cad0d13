"""Per-problem statistics and first solves, each shown when the rules let it be known.

While a problem is open or frozen anyone may see what the public board already shows of it: how many counted
submissions, from how many users, how many reached Stage Pass and who did first. Reward Correct, the first solve
and the shortest L are the hidden terms' verdict: public at reveal, and then taken from the published board
(its newest version: a user taken off by an amendment is not counted), never from rows edited since. Operators
see all of it at any time, with the verdicts counted (``for_jury``).
"""

from __future__ import annotations

from collections import Counter
from statistics import median
from typing import TYPE_CHECKING, Any

from podium.tracks.dojo.lifecycle import REVEALED_STATES
from podium.tracks.dojo.records import Problem, Submission
from podium.tracks.dojo.results import counted
from podium.web.layout import esc

if TYPE_CHECKING:
    from podium.tracks.dojo.platform import Dojo


def _first(rows: list[Submission], names: dict[int, str]) -> dict[str, Any] | None:
    first = min(rows, key=lambda s: (s.created_at, s.id), default=None)
    return None if first is None else {"user": names[first.user_id], "at": first.created_at}


def _reward_part(first: dict[str, Any] | None, lengths: list[int]) -> dict[str, Any]:
    """Reward Correct figures from each solving user's shortest L."""
    return {"reward_correct_users": len(lengths), "first_solve": first, "shortest_L": min(lengths, default=None),
            "median_L": median(lengths) if lengths else None}  # fmt: skip


def problem_stats(dojo: Dojo, problem: Problem, *, for_jury: bool = False) -> dict[str, Any]:
    """The problem's statistics as its viewer may see them now (``for_jury``: everything, at any time)."""
    names = dojo.user_names()
    excluded = dojo.users.disabled_ids()
    rows = [s for s in dojo.submissions(problem.id) if counted(s) and s.user_id not in excluded]
    stage = [s for s in rows if s.stage_pass]
    found: dict[str, Any] = {
        "problem": problem.slug,
        "state": problem.state.value,
        "submissions": len(rows),
        "users": len({s.user_id for s in rows}),
        "stage_pass_users": len({s.user_id for s in stage}),
        "first_stage_pass": _first(stage, names),
    }
    revealed = problem.state in REVEALED_STATES
    if revealed:
        versions = dojo.board_versions(problem)
        board = [r for r in versions[-1].records if r["reward_correct"]] if versions else []
        on_board = {r["user"] for r in board}
        solved = [s for s in rows if s.reward_correct and names[s.user_id] in on_board]
        found |= _reward_part(_first(solved, names), [r["L"] for r in board])
    elif for_jury:
        solved = [s for s in rows if s.reward_correct]
        best: dict[int, int] = {}  # each user's shortest, as a board ranks them
        for s in solved:
            if s.length is not None:
                best[s.user_id] = min(best.get(s.user_id, s.length), s.length)
        found |= _reward_part(_first(solved, names), list(best.values()))
    if for_jury:
        found["verdicts"] = dict(sorted(Counter(s.verdict or "pending" for s in rows).items()))
    return found


def stats_html(found: dict[str, Any]) -> str:
    """The statistics for a problem page, in sentences."""

    def first(key: str) -> str:
        who = found.get(key)
        return "nobody yet" if who is None else f"{who['user']} at {who['at'][:16].replace('T', ' ')} UTC"

    items = [
        f"{found['submissions']} counted submission(s) from {found['users']} user(s)",
        f"{found['stage_pass_users']} user(s) reached Stage Pass; first: {first('first_stage_pass')}",
    ]
    if "reward_correct_users" in found:
        items.append(f"{found['reward_correct_users']} user(s) Reward Correct; first solve: {first('first_solve')}; "
                     f"shortest L {found['shortest_L'] if found['shortest_L'] is not None else '-'}")  # fmt: skip
    else:
        items.append("Reward Correct and the first solve are published at reveal")
    return "<h2>Statistics</h2><ul class='stats'>" + "".join(f"<li>{esc(item)}</li>" for item in items) + "</ul>"
