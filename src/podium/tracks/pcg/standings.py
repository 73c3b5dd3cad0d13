"""What scoring a competition produced: the ranked teams, the scores behind them and the winner.

``stages.score`` makes a ``ScoreRun``; the command line and the report show it. It lives apart from the driver so
that the report reads results without importing a stage.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from podium.tracks.pcg.rules.score import CompetitionScores
from podium.tracks.pcg.rules.winner import WinnerVerdict


@dataclass(frozen=True, slots=True)
class RankedTeam:
    """A row of the final leaderboard."""

    rank: int
    team: str
    normalized: Decimal
    prompt: Decimal
    decided_by: str | None = None  # the tie-break that placed this team, if one did
    per_model: Mapping[str, Decimal] | None = None


@dataclass(frozen=True, slots=True)
class ScoreRun:
    """The outcome of ``run_score``: the leaderboard, what was written and what looked wrong."""

    leaderboard: tuple[RankedTeam, ...]
    competition: Decimal
    result_dir: Path
    warnings: tuple[str, ...]
    models: tuple[str, ...] = ()
    scores: Mapping[str, CompetitionScores] | None = None  # per model ("" for a single-model root)
    winner: WinnerVerdict | None = (
        None  # editions with a winner rule (2025): the rules' winner, also in result/winner.json
    )
