"""The platform's nouns as frozen records, read from and written to the dojo tables."""

from __future__ import annotations

import dataclasses
import enum
import json
from dataclasses import dataclass
from typing import Any, TypeVar

from podium.core.accounts import Account
from podium.tracks.dojo.bonus import UNSPECIFIED
from podium.tracks.dojo.lifecycle import ProblemState
from podium.tracks.dojo.rules import ScoringRules


class Role(enum.StrEnum):
    """What a user may do."""

    SETTER = "setter"
    SOLVER = "solver"
    OPERATOR = "operator"


class JobStatus(enum.StrEnum):
    """Where a submission is in the judging queue."""

    QUEUED = "queued"
    RUNNING = "running"
    JUDGED = "judged"


@dataclass(frozen=True, slots=True)
class User:
    """A person with a role and an API token (only its hash is stored)."""

    id: int
    name: str
    role: Role

    @classmethod
    def from_account(cls, account: Account) -> User:
        """The dojo's view of a core account (its role is one of the dojo's)."""
        return cls(account.id, account.name, Role(account.role))


@dataclass(frozen=True, slots=True)
class Season:
    """A set of problems judged under one set of rules."""

    id: int
    name: str
    rules: ScoringRules

    @classmethod
    def from_row(cls, row: Any) -> Season:
        """From a ``dojo_seasons`` row."""
        return cls(row.id, row.name, cls.rules_from_row(row))

    @staticmethod
    def rules_from_row(row: Any) -> ScoringRules:
        """The rules of any row that carries the seasons' ``rules_json`` column (a join, say)."""
        return ScoringRules.from_json(json.loads(row.rules_json))


@dataclass(frozen=True, slots=True)
class Problem:
    """A problem with its lifecycle state, times and (secret until reveal) setter, terms and salt."""

    id: int
    season_id: int
    slug: str
    title: str
    statement: str
    offset: int
    n_visible: int
    state: ProblemState
    setter_id: int
    setter_source: bytes
    terms: tuple[str, ...] | None
    salt_hex: str | None
    setter_commit: str | None
    seq_commit: str | None
    warnings: tuple[str, ...]
    open_at: str | None
    freeze_at: str | None
    reveal_at: str | None
    opened_at: str | None
    freeze_started_at: str | None
    revealed_at: str | None

    @classmethod
    def from_row(cls, row: Any) -> Problem:
        """From a ``dojo_problems`` row."""
        validation = json.loads(row.validation_json) if row.validation_json else {}
        return _from_row(
            cls,
            row,
            state=ProblemState(row.state),
            setter_source=bytes(row.setter_source),
            terms=tuple(row.terms.splitlines()) if row.terms else None,
            warnings=tuple(validation.get("warnings", ())),
        )

    @property
    def visible_terms(self) -> tuple[str, ...]:
        """The terms everyone sees while the problem is open."""
        return (self.terms or ())[: self.n_visible]


@dataclass(frozen=True, slots=True)
class Submission:
    """One submission and, once judged, its verdict and gates."""

    id: int
    problem_id: int
    user_id: int
    source: bytes
    solver_hash: str | None
    length: int | None
    method_tag: str
    notes: str
    created_at: str
    practice: bool
    status: JobStatus
    attempts: int
    verdict: str | None
    reason: str | None
    stage_pass: bool | None
    reward_correct: bool | None
    backend: str | None
    isolated: bool | None
    tag_override: str | None  # why the claimed tag was ignored, once judged
    # what its run cost and which judge judged it (None before migration 0009, and until judged)
    stderr: str | None = None
    wall_time_s: float | None = None
    cpu_time_s: float | None = None
    cpu_counted_by: str | None = None
    peak_memory_mib: float | None = None
    waited_s: float | None = None
    judge_version: str | None = None

    @property
    def counted_tag(self) -> str:
        """The tag diversity counts: the claim, or ``unspecified`` where the judge overrode it."""
        return UNSPECIFIED if self.tag_override else self.method_tag

    @classmethod
    def from_row(cls, row: Any) -> Submission:
        """From a ``dojo_submissions`` row."""
        return _from_row(cls, row, source=bytes(row.source), practice=bool(row.practice), status=JobStatus(row.status))


R = TypeVar("R")


def _from_row(cls: type[R], row: Any, **converted: Any) -> R:
    """A record whose fields are the row's columns of the same names, except those given ``converted``."""
    names = [field.name for field in dataclasses.fields(cls)]  # type: ignore[arg-type]
    return cls(**{name: converted[name] if name in converted else getattr(row, name) for name in names})
