"""Validating a setter before its problem opens (docs/rules/dojo-platform.md §4).

A setter is accepted when it passes the static policy (numeric-literal limit relaxed), runs in the sandbox with
the setter's limits and prints at least ``n_check`` valid terms of at most 10,000 digits, prints the same under two
different hash seeds, and is not degenerate: not constant, not eventually periodic with a period of at most 20
(taken as: its second half repeats with such a period), and its visible terms differ from every other problem's in
the season. Problems found here stop the opening.

The "too easy" check only warns the operator: when a recurrence determined by the visible terms alone reproduces
all ``n_check`` terms — a constant-coefficient one (Berlekamp–Massey) or a small P-recursive one (polynomial
coefficients; ``recurrence.py``) — a solver can recover the sequence without understanding it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from podium.core.errors import InputError
from podium.core.execution.sandbox import Sandbox
from podium.tracks.dojo.problem import setter_terms
from podium.tracks.dojo.recurrence import linear_recurrence_order, p_recursive, residues
from podium.tracks.dojo.rules import ScoringRules

MAX_PERIOD = 20


@dataclass(frozen=True, slots=True)
class SetterValidation:
    """The terms a setter printed, the problems that block opening, and warnings for the operator."""

    terms: tuple[str, ...]
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def accepted(self) -> bool:
        """Whether the problem may open."""
        return not self.problems


def validate_setter(
    source: bytes,
    sandbox: Sandbox,
    rules: ScoringRules,
    *,
    n_visible: int,
    other_visible: Sequence[Sequence[str]] = (),
    where: Path | str = "setter.py",
) -> SetterValidation:
    """Run every check of docs/rules/dojo-platform.md §4 on a setter; sandbox failures are problems, not exceptions."""
    try:
        terms = setter_terms(source, sandbox, rules, where=where, hash_seed=0)
        again = setter_terms(source, sandbox, rules, where=where, hash_seed=12345)
    except InputError as error:
        return SetterValidation((), [error.message])
    problems: list[str] = []
    if terms != again:
        first = next(i for i, (a, b) in enumerate(zip(terms, again, strict=True)) if a != b)
        problems.append(f"not deterministic: term {first} differs between two runs with different hash seeds")
    if len(set(terms)) == 1:
        problems.append("degenerate: the sequence is constant")
    elif (period := eventual_period(terms)) is not None:
        problems.append(f"degenerate: eventually periodic with period {period}")
    visible = tuple(terms[:n_visible])
    if any(tuple(other[:n_visible]) == visible for other in other_visible):
        problems.append(f"its first {n_visible} terms equal those of another problem in the season")
    warnings = []
    values = residues(terms)  # once for both guessers: long terms are costly to reduce
    if (order := linear_recurrence_order(values, n_visible)) is not None:
        warnings.append(
            f"too easy: a linear recurrence of order {order} found from the {n_visible} visible terms "
            f"reproduces all {len(terms)} terms (Berlekamp–Massey mod 2^61-1)"
        )
    elif (found := p_recursive(values, n_visible)) is not None:
        warnings.append(
            f"too easy: a P-recursive recurrence of order {found.order} with degree-{found.degree} polynomial "
            f"coefficients found from the {n_visible} visible terms reproduces all {len(terms)} terms"
        )
    return SetterValidation(terms, problems, warnings)


def eventual_period(terms: Sequence[str], max_period: int = MAX_PERIOD) -> int | None:
    """The smallest period ≤ ``max_period`` with which the second half of ``terms`` repeats, if any."""
    start = len(terms) // 2
    for period in range(1, max_period + 1):
        if start + period < len(terms) and all(
            terms[i] == terms[i + period] for i in range(start, len(terms) - period)
        ):
            return period
    return None
