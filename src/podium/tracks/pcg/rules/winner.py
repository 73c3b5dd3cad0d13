"""The 2025 winner rule, as a pure function of the final standings.

The rules' ranking policy (``docs/rules/pcg.md`` §8.3): "The team that has the highest
norm_total_prompt and overcomes our zero-shot baseline will be declared the winner. If there are multiple teams
with the same highest score, the one with the shortest prompt will be chosen as the winner. However, if multiple
teams still have the same score and the shortest prompt, they will be considered co-winners."

Read literally, and as the published tables apply it:

- the candidates are the teams, not the baselines or the organisers' entries (they are scored, count in the
  normalisation, and are never ranked: rank −1 in the published tables);
- the leaders are the candidates with the highest normalised total (equal means equal to the 20th decimal place
  the scores carry); among several, those with the fewest prompt words; still several: co-leaders;
- the leaders win only if their score is strictly above the zero-shot baseline's. When the highest total does not
  beat it, no team does: no winner. When the baseline was not scored at all, the rule cannot be applied: the
  verdict names the leaders and says the baseline is missing, and declares nobody.

What "prompt length" means for a program is decided in ``docs/design/pcg-scoring.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from typing import Any

from podium.tracks.pcg.official import jsnum

RULE = (
    "2025: the highest normalised total that also beats the zero-shot baseline wins; among equal totals the "
    "shortest prompt; still equal: co-winners"
)
DEFAULT_BASELINE = "baseline_zero_shot"


class Outcome(StrEnum):
    """How the rule ended."""

    WINNER = "winner"
    CO_WINNERS = "co-winners"
    NO_TEAM_BEATS_BASELINE = "no team beats the baseline"
    BASELINE_MISSING = "baseline missing"
    NO_TEAMS = "no teams"


@dataclass(frozen=True, slots=True)
class Standing:
    """One scored entry: its normalised total and, if known, its prompt length in words."""

    team: str
    normalized: Decimal
    prompt_words: int | None = None


@dataclass(frozen=True, slots=True)
class WinnerVerdict:
    """What the rule declares, and the sentence that says why."""

    outcome: Outcome
    winners: tuple[str, ...]  # empty unless the outcome is WINNER or CO_WINNERS
    leaders: tuple[str, ...]  # the best candidates after the prompt-length tie-break, baseline or not
    baseline: str
    baseline_score: Decimal | None
    leader_score: Decimal | None
    decided_by: str | None  # "score", "shorter prompt", or None when no leader was singled out
    message: str

    def as_json(self) -> dict[str, Any]:
        """The verdict as JSON data (numbers as the plain decimal strings of the result files)."""
        return {
            "rule": RULE,
            "outcome": self.outcome.value,
            "winners": list(self.winners),
            "leaders": list(self.leaders),
            "decidedBy": self.decided_by,
            "leaderScore": None if self.leader_score is None else jsnum.to_fixed(self.leader_score),
            "baseline": {
                "team": self.baseline,
                "normalizedScore": None if self.baseline_score is None else jsnum.to_fixed(self.baseline_score),
            },
            "message": self.message,
        }


def _shown(score: Decimal) -> str:
    return f"{float(score):.4f}"


def _break_tie(tied: Sequence[Standing]) -> tuple[tuple[str, ...], str | None, str]:
    """The leaders among equal totals: the shortest prompt, else all of them; with how and a note."""
    names = tuple(s.team for s in tied)
    if len(tied) == 1:
        return names, "score", ""
    unknown = [s.team for s in tied if s.prompt_words is None]
    if unknown:
        return names, None, f"; prompt lengths unknown for {', '.join(unknown)}, so the tie stands"
    shortest = min(s.prompt_words for s in tied if s.prompt_words is not None)
    best = tuple(s.team for s in tied if s.prompt_words == shortest)
    if len(best) == 1:
        return best, "shorter prompt", f" ({shortest} prompt words, the fewest of {len(tied)} equal totals)"
    return best, None, f"; equal totals and equal prompts ({shortest} words)"


def declare_winner(
    standings: Sequence[Standing],
    baseline: str = DEFAULT_BASELINE,
    not_competing: frozenset[str] = frozenset(),
) -> WinnerVerdict:
    """Apply the 2025 rule to ``standings`` (every scored entry, baselines included)."""
    scores: Mapping[str, Decimal] = {s.team: s.normalized for s in standings}
    baseline_score = scores.get(baseline)
    candidates = [s for s in standings if s.team != baseline and s.team not in not_competing]
    if not candidates:
        message = "no competing team was scored: no winner"
        return WinnerVerdict(Outcome.NO_TEAMS, (), (), baseline, baseline_score, None, None, message)
    top = max(s.normalized for s in candidates)
    leaders, decided_by, note = _break_tie([s for s in candidates if s.normalized == top])
    named = " and ".join(leaders)
    if baseline_score is None:
        message = (
            f"the zero-shot baseline {baseline!r} was not scored, so the rule cannot be applied: no winner "
            f"declared; highest total: {named} ({_shown(top)}){note}"
        )
        return WinnerVerdict(Outcome.BASELINE_MISSING, (), leaders, baseline, None, top, decided_by, message)
    if top <= baseline_score:
        message = (
            f"no team beats the zero-shot baseline {baseline} ({_shown(baseline_score)}): no winner; "
            f"highest total: {named} ({_shown(top)})"
        )
        return WinnerVerdict(Outcome.NO_TEAM_BEATS_BASELINE, (), leaders, baseline, baseline_score, top, None, message)
    beats = f"beats the zero-shot baseline {baseline} ({_shown(baseline_score)})"
    if len(leaders) == 1:
        message = f"winner: {named} ({_shown(top)}), decided by {decided_by}{note}; {beats}"
        return WinnerVerdict(Outcome.WINNER, leaders, leaders, baseline, baseline_score, top, decided_by, message)
    message = f"co-winners: {named} ({_shown(top)}){note}; {beats}"
    return WinnerVerdict(Outcome.CO_WINNERS, leaders, leaders, baseline, baseline_score, top, None, message)
