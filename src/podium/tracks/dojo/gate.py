"""Stage ``gate``: the correctness gates of docs/rules/dojo-scoring.md §2 on the printed terms.

Stage Pass: the first ``n_stage`` (100) terms equal the setter's; Reward Correct: the first ``n_check`` (200) do.
Fewer printed terms than a gate needs fail that gate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from podium.tracks.dojo.rules import ScoringRules


@dataclass(frozen=True, slots=True)
class Gates:
    """Which gates a run reached and how many leading terms matched (for tests; never stored or shown)."""

    stage_pass: bool
    reward_correct: bool
    matching_prefix: int


def gate(printed: Sequence[str], truth: Sequence[str], rules: ScoringRules) -> Gates:
    """Compare ``printed`` with the setter's ``truth`` (both decimal strings)."""
    matching = 0
    for mine, true in zip(printed, truth[: rules.n_check], strict=False):
        if mine != true:
            break
        matching += 1
    return Gates(matching >= rules.n_stage, matching >= rules.n_check, matching)
