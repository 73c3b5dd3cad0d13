"""Validating a setter before its problem opens (spec dojo.md 4).

A setter is accepted when it passes the static policy (numeric-literal limit relaxed), runs in the sandbox with
the setter's limits and prints at least ``n_check`` valid terms of at most 10,000 digits, prints the same under two
different hash seeds, and is not degenerate: not constant, not eventually periodic with a period of at most 20
(taken as: its second half repeats with such a period), and its visible terms differ from every other problem's in
the season. Problems found here stop the opening.

The "too easy" check only warns the operator: when the shortest linear recurrence of the visible terms (found by
Berlekamp–Massey modulo the prime 2^61 − 1) is determined by them and reproduces all ``n_check`` terms, a solver
can recover the sequence without understanding it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from podium.core.errors import InputError
from podium.core.execution.sandbox import Sandbox
from podium.tracks.dojo.problem import setter_terms
from podium.tracks.dojo.rules import ScoringRules

MAX_PERIOD = 20
PRIME = (1 << 61) - 1


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
    """Run every check of spec 4 on a setter; sandbox failures are problems, not exceptions."""
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
    if (order := guessable_recurrence_order(terms, n_visible)) is not None:
        warnings.append(
            f"too easy: a linear recurrence of order {order} found from the {n_visible} visible terms "
            f"reproduces all {len(terms)} terms (Berlekamp–Massey mod 2^61-1)"
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


def berlekamp_massey(values: Sequence[int], prime: int = PRIME) -> list[int]:
    """The shortest ``c`` with ``v[n] = Σ c[i]·v[n−1−i] (mod prime)`` for every ``n`` ≥ ``len(c)`` in ``values``."""
    current: list[int] = []
    previous: list[int] = []
    last_discrepancy, shift = 1, 1
    for n, value in enumerate(values):
        discrepancy = (value - sum(c * values[n - 1 - i] for i, c in enumerate(current))) % prime
        if discrepancy == 0:
            shift += 1
            continue
        factor = discrepancy * pow(last_discrepancy, prime - 2, prime) % prime
        candidate = current + [0] * max(0, len(previous) + shift - len(current))
        candidate[shift - 1] = (candidate[shift - 1] + factor) % prime
        for i, c in enumerate(previous):
            candidate[shift + i] = (candidate[shift + i] - factor * c) % prime
        if 2 * len(current) <= n:
            previous, last_discrepancy, shift = current, discrepancy, 1
        else:
            shift += 1
        current = candidate
    return current


def guessable_recurrence_order(terms: Sequence[str], n_visible: int, prime: int = PRIME) -> int | None:
    """The order of a recurrence determined by the visible terms that predicts every term, or None."""
    values = [int(term) % prime for term in terms]
    recurrence = berlekamp_massey(values[:n_visible], prime)
    if 2 * len(recurrence) > n_visible:  # not determined by the visible terms: any sequence fits such a one
        return None
    order = len(recurrence)
    for n in range(order, len(values)):
        if sum(c * values[n - 1 - i] for i, c in enumerate(recurrence)) % prime != values[n]:
            return None
    return order
