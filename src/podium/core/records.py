"""Record conventions shared by every track.

Records are frozen dataclasses (``@dataclass(frozen=True, slots=True)``); a stage returns either its output record or a
``StageFailure`` that names a verdict from the track's closed ``Verdict`` enum and a human-readable reason.
Later stages pass failures through, and reports show them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Verdict(enum.StrEnum):
    """Base of each track's closed set of verdicts; a value is a stable machine name."""


@dataclass(frozen=True, slots=True)
class StageFailure:
    """Why one item could not pass a stage; data, not an exception."""

    verdict: Verdict
    reason: str

    def __str__(self) -> str:
        return f"{self.verdict.value}: {self.reason}"
