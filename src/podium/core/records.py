"""Record conventions shared by every track.

Records are frozen dataclasses (``record`` below); a stage returns either its output record or a
``StageFailure`` that names a verdict from the track's closed ``Verdict`` enum and a human-readable reason.
Later stages pass failures through, and reports show them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


def record(cls: type[T]) -> type[T]:
    """Make ``cls`` a frozen, slotted dataclass: the house style for records."""
    return dataclass(frozen=True, slots=True)(cls)


class Verdict(enum.StrEnum):
    """Base of each track's closed set of verdicts; a value is a stable machine name."""


@dataclass(frozen=True, slots=True)
class StageFailure:
    """Why one item could not pass a stage; data, not an exception."""

    verdict: Verdict
    reason: str

    def __str__(self) -> str:
        return f"{self.verdict.value}: {self.reason}"
