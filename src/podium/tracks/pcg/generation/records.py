"""The records of response generation: which trial, how it ended (a closed verdict), what a team's run produced."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path


class GenerateVerdict(enum.StrEnum):
    """How one trial ended (closed set). Only OK writes a response file."""

    OK = "ok"
    SKIPPED = "skipped"
    """Its response file existed: kept, not asked again."""
    TIME_LIMIT = "time_limit"
    """The official check: a call started after the trial's ``max_time`` (``TimeoutError`` in the program)."""
    TOKEN_LIMIT = "token_limit"
    """The official check: the trial's tokens passed the limit after a call (``ValueError`` in the program)."""
    PROGRAM_FAILED = "program_failed"
    """The program itself raised ``TimeoutError`` or ``ValueError``: a failed trial, as officially."""
    PROGRAM_ERROR = "program_error"
    """Any other exception, a non-text result, a request the rules refuse, or the process ending mid-trial."""
    HARD_LIMIT = "hard_limit"
    """Killed from outside: the trial's wall limit, or the process's CPU, memory or output limit."""
    PROGRAM_REJECTED = "program_rejected"
    """The program could not be imported, or has no single ``TrialLoop`` subclass: none of its trials ran."""
    CONTEXT_LIMIT = "context_limit"
    """The server refused a call because the conversation passed the model's context window (not retried)."""
    MODEL_ERROR = "model_error"
    """The model server failed after its retries, or said it, the model or the key is wrong (not the program's
    fault; a rerun asks again)."""
    INTERNAL_ERROR = "internal_error"
    """The sandbox failed (never the program's fault)."""


@dataclass(frozen=True, slots=True, order=True)
class TrialKey:
    """One trial: a letter and a number from 1."""

    character: str
    number: int


@dataclass(frozen=True, slots=True)
class TrialOutcome:
    """How one trial ended, and what it cost."""

    key: TrialKey
    verdict: GenerateVerdict
    reason: str = ""
    calls: int = 0
    total_tokens: int = 0


@dataclass(frozen=True, slots=True)
class TeamRun:
    """One team's generation run: every planned trial's outcome, in the official order, and where it logged."""

    team: str
    outcomes: tuple[TrialOutcome, ...]
    log: Path
    transcript: Path
    processes: int  # sandboxed processes started (1 unless one died mid-run)
    server_down: str | None = None  # why the run stopped asking a model server that kept failing, if it did
    server_fix: str | None = None  # what to do about it, where the failure said

    def count(self, verdict: GenerateVerdict) -> int:
        """How many trials ended with ``verdict``."""
        return sum(o.verdict is verdict for o in self.outcomes)
