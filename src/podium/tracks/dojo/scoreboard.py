"""The public scoreboard of a season: it follows the season within what the rules publish.

For a revealed problem everything is public: its scores count in full. For a problem still open only what a
contestant may see of others: whether each user reached Stage Pass and how many counted submissions they made —
never Reward Correct or a score before reveal (the sequence's identity stays secret). Once a problem's freeze
time has passed, its part of the board stays as it was at the freeze: later submissions are practice and are not
shown. Operators may see the live board (``live``): every problem scored now, as the season would end if revealed
at once, beside the public one.

Rows are ranked by the revealed score, then by the number of problems with Stage Pass; equal rows share a rank.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from podium.core.clock import parse_utc
from podium.core.ranking.leaderboard import Ranked, TieBreak, rank_entries
from podium.tracks.dojo.lifecycle import PUBLISHED
from podium.tracks.dojo.results import counted, published_scores, score_submissions
from podium.tracks.dojo.standings import ScoredSubmission, season_standings

if TYPE_CHECKING:
    from podium.tracks.dojo.platform import Dojo

STAGE_PASS_FIRST: TieBreak[BoardRow] = TieBreak("stage_pass", lambda r: r.stage_pass, lower_wins=False)
SCOREBOARD_COLUMNS = ("rank", "user", "score", "reward_correct", "stage_pass", "submissions")


@dataclass(frozen=True, slots=True)
class BoardRow:
    """One user on the board: the revealed score and solutions, and what is public of the others."""

    user: str
    score: int  # revealed problems only
    reward_correct: int  # revealed problems only
    stage_pass: int  # problems with Stage Pass, revealed or not (open ones as of their freeze)
    submissions: int  # counted submissions, revealed or not (open ones as of their freeze)


def scoreboard(dojo: Dojo, season: str, *, live: bool = False) -> list[Ranked[BoardRow]]:
    """The season's board as the public sees it now (``live``: as operators see it, every problem scored)."""
    rules, names, excluded = dojo.season(season).rules, dojo.user_names(), dojo.users.disabled_ids()
    now = dojo.clock.now()
    revealed: list[ScoredSubmission] = []
    stage: dict[str, int] = {}
    count: dict[str, int] = {}
    published = [p for p in dojo.problems(season) if p.state in PUBLISHED]
    every = dojo.submissions_by_problem(p.id for p in published)  # one query for the whole season
    records = published_scores(dojo, published)  # a revealed problem's scores are its published board's
    for problem in published:
        judged = [s for s in every[problem.id] if counted(s) and s.user_id not in excluded]
        if problem.id in records:
            revealed += records[problem.id]
        elif live:
            revealed += score_submissions(problem, judged, names, rules, excluded)
        frozen_at = problem.freeze_started_at or problem.freeze_at  # the freeze made, else the one scheduled
        cutoff = parse_utc(frozen_at) if frozen_at and not live else now
        passed: set[str] = set()
        for s in judged:
            if parse_utc(s.created_at) < cutoff:
                name = names[s.user_id]
                count[name] = count.get(name, 0) + 1
                if s.stage_pass:
                    passed.add(name)
        for name in passed:  # a problem counts once per user, however many of their submissions passed
            stage[name] = stage.get(name, 0) + 1
    scored = {row.entry.user: row.entry for row in season_standings(revealed)}
    rows = [
        BoardRow(name, scored[name].score if name in scored else 0,
                 scored[name].reward_correct if name in scored else 0, stage.get(name, 0), count.get(name, 0))
        for name in sorted(set(count) | set(scored))
    ]  # fmt: skip
    return rank_entries(rows, lambda r: r.score, tie_breaks=[STAGE_PASS_FIRST])


def scoreboard_records(board: list[Ranked[BoardRow]]) -> list[dict[str, Any]]:
    """The board as JSON objects keyed by ``SCOREBOARD_COLUMNS`` (numbers as numbers)."""
    return [
        {"rank": row.rank, "user": row.entry.user, "score": row.entry.score,
         "reward_correct": row.entry.reward_correct, "stage_pass": row.entry.stage_pass,
         "submissions": row.entry.submissions}
        for row in board
    ]  # fmt: skip
