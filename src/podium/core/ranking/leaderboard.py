"""Rank entries by a declared key and tie-breaks.

Two ways to turn an order into ranks:

- ``TieMethod.SHARED``: entries equal on the key and on every tie-break share a rank and the next rank skips
  ("1, 2, 2, 4"), which is what published rules mean by co-winners;
- ``TieMethod.POSITION``: rank = position after a stable sort, so ties keep their input order and get different
  ranks. That is what the official ChatGPT4PCG script did (its comparator never returns 0), kept to reproduce
  official tables.

A tie-break whose value is missing (``None``) for one of two tied entries cannot separate them.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Generic, TypeVar

E = TypeVar("E")
SortValue = Decimal | Fraction | float | int | str  # Fraction: exact means (human-eval scores) tie exactly


class TieMethod(enum.StrEnum):
    """How entries that compare equal are ranked."""

    SHARED = "shared"
    POSITION = "position"


@dataclass(frozen=True, slots=True)
class TieBreak(Generic[E]):
    """A secondary key consulted when the primary key ties; ``lower_wins`` picks the direction."""

    name: str
    key: Callable[[E], SortValue | None]
    lower_wins: bool = True


@dataclass(frozen=True, slots=True)
class Ranked(Generic[E]):
    """One entry with its rank and, when a tie-break decided its place, the name of that tie-break."""

    rank: int
    entry: E
    decided_by: str | None = None


def rank_entries(
    entries: Sequence[E],
    score: Callable[[E], SortValue],
    *,
    higher_wins: bool = True,
    tie_breaks: Sequence[TieBreak[E]] = (),
    method: TieMethod = TieMethod.SHARED,
) -> list[Ranked[E]]:
    """Order ``entries`` best first and assign ranks by ``method``."""

    def primary(entry: E) -> SortValue:
        value = score(entry)
        return -value if higher_wins and not isinstance(value, str) else value

    # Stable sort on the primary key only; tie-breaks apply within runs of equal primary values.
    ordered = sorted(entries, key=primary)
    if method is TieMethod.POSITION:
        return [Ranked(position, entry) for position, entry in enumerate(ordered, start=1)]

    result: list[Ranked[E]] = []
    start = 0
    while start < len(ordered):
        end = start + 1
        while end < len(ordered) and primary(ordered[end]) == primary(ordered[start]):
            end += 1
        result.extend(_rank_tied_run(ordered[start:end], start + 1, tie_breaks))
        start = end
    return result


def _rank_tied_run(run: Sequence[E], first_rank: int, tie_breaks: Sequence[TieBreak[E]]) -> list[Ranked[E]]:
    """Rank a run of entries equal on the primary key, splitting it by the first tie-break that separates it."""
    if len(run) == 1:
        return [Ranked(first_rank, run[0])]
    for index, tie_break in enumerate(tie_breaks):
        values = [tie_break.key(entry) for entry in run]
        if any(value is None for value in values) or len(set(values)) == 1:
            continue
        groups: dict[SortValue, list[E]] = {}
        for entry, value in zip(run, values, strict=True):
            groups.setdefault(value, []).append(entry)  # type: ignore[arg-type]
        ranked: list[Ranked[E]] = []
        rank = first_rank
        for value in sorted(groups, reverse=not tie_break.lower_wins):
            group = groups[value]
            for sub in _rank_tied_run(group, rank, tie_breaks[index + 1 :]):
                ranked.append(Ranked(sub.rank, sub.entry, sub.decided_by or tie_break.name))
            rank += len(group)
        return ranked
    return [Ranked(first_rank, entry) for entry in run]
