"""Clean-room verification: each Reward Correct row of a board judged again alone, on a cold page cache.

Timing reads of the page cache pass data from one run to a later one with no system call a filter could refuse
(docs/design/core.md, "What the kernel shares"), so the last defence does not list calls: between freeze and reveal
(and whenever an operator runs ``podium dojo verify``) every submission that would score is judged again in the
clean room (``clean_room.py``: no other sandboxed run on the host, the files its box can read evicted first). A
program that printed terms another run left it prints something else there.

Each check ends in one of three findings (docs/rules/dojo-platform.md §2):

- **verified**: Reward Correct again;
- **unverified**: other terms, or a failure other than a limit, or a limit its judged run was far from (it used
  less than the limit ÷ 1.1): it is withdrawn from the board by an audited amendment (``published.py``), the
  other scores as finalised at the freeze;
- **borderline**: a limit its judged run was within 10 % of, a sandbox failure, or a judged run whose figures were
  not recorded: left on the board for the operator to decide (``podium dojo disqualify --problem P ID``), never
  silently to 0.

Every check is recorded in a ``verified`` audit entry with what it cost: the eviction and the run.
"""

from __future__ import annotations

import dataclasses
import enum
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from podium.core.execution.sandbox import Sandbox
from podium.core.execution.sandbox.clean_room import clean_room
from podium.core.execution.sandbox.root import Entry
from podium.core.storage.audit import AuditEntry, audit_payload
from podium.tracks.dojo.judge import Judgment, judge_submission
from podium.tracks.dojo.published import BoardVersion
from podium.tracks.dojo.records import Submission
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.verdicts import RunVerdict

VERIFIED_KIND = "verified"
LIMIT_MARGIN = 1.10
"""A run that meets a limit again is borderline when its judged run used at least limit ÷ LIMIT_MARGIN of it."""


class Finding(enum.StrEnum):
    """What verifying one submission found."""

    VERIFIED = "verified"
    UNVERIFIED = "unverified"
    BORDERLINE = "borderline"


@dataclass(frozen=True, slots=True)
class Check:
    """One submission judged again in the clean room."""

    submission: int
    user: str
    finding: Finding
    reason: str
    verdict: str
    cpu_time_s: float | None
    wall_time_s: float | None
    peak_memory_mib: float | None
    evicted_files: int
    cost_s: float  # the eviction and the judging, wall time

    def record(self) -> dict[str, Any]:
        """The check as stored in the audit entry (JSON's own types)."""
        return {**dataclasses.asdict(self), "finding": self.finding.value}

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Check:
        """A check read back from an audit entry."""
        return cls(**{**record, "finding": Finding(record["finding"])})


@dataclass(frozen=True, slots=True)
class Verification:
    """One verification of a problem's board: when, against which freeze, and each check."""

    at: str
    problem: str
    season: str
    freeze_started_at: str | None
    checks: tuple[Check, ...]

    def withdrawn(self) -> frozenset[int]:
        """The submissions it found unverified."""
        return frozenset(c.submission for c in self.checks if c.finding is Finding.UNVERIFIED)

    def withdrawal_reason(self) -> str:
        """Why its amendment takes the unverified rows off a board (published with the new version)."""
        shown = "; ".join(
            f"submission {c.submission} ({c.user}): {c.reason}" for c in self.checks if c.finding is Finding.UNVERIFIED
        )
        return f"unverified by clean-room verification of {self.at}: {shown}"

    def payload(self) -> dict[str, Any]:
        """The ``verified`` audit entry's payload."""
        return {
            "problem": self.problem,
            "season": self.season,
            "freeze_started_at": self.freeze_started_at,
            "checks": [c.record() for c in self.checks],
        }


def verify_rows(
    rows: Sequence[tuple[Submission, str]],
    truth: Sequence[str],
    rules: ScoringRules,
    sandbox: Sandbox,
    view: tuple[Entry, ...],
) -> list[Check]:
    """Judge each (submission, user) again in a clean room of the box ``view`` and say what that found."""
    checks = []
    for submission, user in rows:
        started = time.perf_counter()
        with clean_room(view) as eviction:
            again = judge_submission(submission.source, truth, sandbox, rules, apply_screen=False)
        finding, reason = finding_of(submission, again, rules)
        checks.append(
            Check(
                submission=submission.id,
                user=user,
                finding=finding,
                reason=reason,
                verdict=again.verdict.value,
                cpu_time_s=again.cpu_time_s,
                wall_time_s=again.wall_time_s,
                peak_memory_mib=again.peak_memory_mib,
                evicted_files=eviction.files,
                cost_s=round(time.perf_counter() - started, 4),
            )
        )
    return checks


def finding_of(judged: Submission, again: Judgment, rules: ScoringRules) -> tuple[Finding, str]:
    """What the clean room's judgment ``again`` says of ``judged``, a Reward Correct submission."""
    if again.reward_correct:
        return Finding.VERIFIED, f"the same first {rules.n_check} terms"
    if again.verdict in (RunVerdict.OK, RunVerdict.FORMAT_ERROR):
        return Finding.UNVERIFIED, f"printed other terms than its judged run ({again.verdict.value}: {again.reason})"
    if again.verdict is RunVerdict.INTERNAL_ERROR:
        return Finding.BORDERLINE, f"the sandbox failed ({again.reason}): judge it again or decide"
    limit = _limit_met(again, judged, rules)
    if limit is None:
        return Finding.UNVERIFIED, f"{again.verdict.value} where its judged run was Reward Correct: {again.reason}"
    what, allowed, used, unit = limit
    if used is None:
        return Finding.BORDERLINE, f"met the {what} limit ({allowed:g} {unit}); its judged run's was not recorded"
    if allowed <= LIMIT_MARGIN * used:
        return Finding.BORDERLINE, (
            f"met the {what} limit ({allowed:g} {unit}); its judged run used {used:.3g} {unit}, within 10 %"
        )
    return Finding.UNVERIFIED, f"met the {what} limit ({allowed:g} {unit}); its judged run used only {used:.3g} {unit}"


def _limit_met(again: Judgment, judged: Submission, rules: ScoringRules) -> tuple[str, float, float | None, str] | None:
    """(which limit, its value, the judged run's figure of it, unit) when ``again`` ended at a limit."""
    if again.verdict is RunVerdict.MEMORY_LIMIT:
        return "memory", float(rules.solver_memory_mib), judged.peak_memory_mib, "MiB"
    if again.verdict is not RunVerdict.TIME_LIMIT:
        return None
    if again.cpu_time_s is not None and again.cpu_time_s >= rules.solver_cpu_time_s:
        return "CPU time", rules.solver_cpu_time_s, judged.cpu_time_s, "s"
    return "wall time", rules.solver_wall_time_s, judged.wall_time_s, "s"


def verification_report(verification: Verification, amendment: BoardVersion | None) -> str:
    """What ``podium dojo verify`` prints: each check, what it cost, and what happens to the unverified rows."""
    checks = verification.checks
    cost = sum(c.cost_s for c in checks) / len(checks) if checks else 0.0
    lines = [
        f"{verification.problem}: {len(checks)} Reward Correct row(s) judged again alone on a cold page cache "
        f"({cost:.2f} s each on average)"
    ]
    for c in checks:
        lines.append(f"  submission {c.submission} ({c.user}): {c.finding.value.upper()}: {c.reason}")
        if c.finding is Finding.BORDERLINE:
            lines.append(
                f"    yours to decide: podium dojo disqualify {c.submission} --problem {verification.problem} "
                "--reason TEXT (once revealed), or leave it"
            )
    gone = sorted(verification.withdrawn())
    if amendment is not None:
        lines.append(f"version {amendment.version} of the board published without submission(s) {gone}")
    elif gone:
        lines.append(f"withdrawn at reveal: submission(s) {gone}")
    return "\n".join(lines)


def verifications_of(entries: Iterable[AuditEntry], slug: str, season: str) -> list[Verification]:
    """The verifications of problem ``slug`` of ``season``, oldest first, from its audit entries."""
    found = []
    for entry in entries:
        if entry.kind != VERIFIED_KIND:
            continue
        payload = audit_payload(entry)
        if payload.get("problem") != slug or payload.get("season") != season:
            continue
        found.append(
            Verification(
                at=entry.at,
                problem=slug,
                season=season,
                freeze_started_at=payload.get("freeze_started_at"),
                checks=tuple(Check.from_record(record) for record in payload["checks"]),
            )
        )
    return found
