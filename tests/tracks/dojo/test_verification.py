"""What a clean-room check finds, from the judged submission and the judgment made again.

Verified: Reward Correct again. Unverified: other terms, a failure other than a limit, or a limit the judged run
was far from. Borderline (the operator's): a limit within 10 % of the judged run's figure, a figure not recorded,
a sandbox failure — never silently withdrawn.
"""

from __future__ import annotations

import dataclasses

import pytest

from podium.tracks.dojo.judge import Judgment
from podium.tracks.dojo.records import JobStatus, Submission
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.verdicts import RunVerdict
from podium.tracks.dojo.verification import Check, Finding, Verification, finding_of

RULES = ScoringRules()  # 2 s of CPU, 5 s of wall time, 256 MiB
JUDGED = Submission(
    id=7, problem_id=1, user_id=2, source=b"", solver_hash="h", length=35, method_tag="unspecified", notes="",
    created_at="2026-11-01T10:00:00Z", practice=False, status=JobStatus.JUDGED, attempts=1, verdict="OK",
    reason="printed 200 terms", stage_pass=True, reward_correct=True, backend="forkserver", isolated=True,
    tag_override=None, wall_time_s=0.4, cpu_time_s=0.3, peak_memory_mib=20.0,
)  # fmt: skip
AGAIN = Judgment(
    verdict=RunVerdict.OK, reason="printed 200 terms", stage_pass=True, reward_correct=True, length=35,
    solver_hash="h", brevity=0, score=0, screened=False, policy=None, backend="forkserver", isolated=True,
    wall_time_s=0.4, cpu_time_s=0.3, peak_memory_mib=20.0,
)  # fmt: skip


def again(**changes: object) -> Judgment:
    return dataclasses.replace(AGAIN, **changes)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("judged", "judgment", "finding", "said"),
    [
        (JUDGED, AGAIN, Finding.VERIFIED, "the same first 200 terms"),
        (JUDGED, again(reward_correct=False), Finding.UNVERIFIED, "printed other terms"),
        (JUDGED, again(reward_correct=False, verdict=RunVerdict.FORMAT_ERROR), Finding.UNVERIFIED, "other terms"),
        (JUDGED, again(reward_correct=False, verdict=RunVerdict.RUNTIME_ERROR), Finding.UNVERIFIED, "RUNTIME_ERROR"),
        (JUDGED, again(reward_correct=False, verdict=RunVerdict.TIME_LIMIT, cpu_time_s=2.01), Finding.UNVERIFIED,
         "used only 0.3 s"),
        (dataclasses.replace(JUDGED, cpu_time_s=1.85), again(reward_correct=False, verdict=RunVerdict.TIME_LIMIT,
         cpu_time_s=2.0), Finding.BORDERLINE, "used 1.85 s, within 10 %"),
        (dataclasses.replace(JUDGED, wall_time_s=4.7), again(reward_correct=False, verdict=RunVerdict.TIME_LIMIT,
         cpu_time_s=1.0, wall_time_s=5.0), Finding.BORDERLINE, "wall time limit (5 s)"),
        (JUDGED, again(reward_correct=False, verdict=RunVerdict.MEMORY_LIMIT), Finding.UNVERIFIED,
         "used only 20 MiB"),
        (dataclasses.replace(JUDGED, peak_memory_mib=None), again(reward_correct=False,
         verdict=RunVerdict.MEMORY_LIMIT), Finding.BORDERLINE, "was not recorded"),
        (JUDGED, again(reward_correct=False, verdict=RunVerdict.INTERNAL_ERROR), Finding.BORDERLINE,
         "the sandbox failed"),
    ],
)  # fmt: skip
def test_each_outcome_of_a_run_judged_again_gets_its_finding(
    judged: Submission, judgment: Judgment, finding: Finding, said: str
) -> None:
    found, reason = finding_of(judged, judgment, RULES)
    assert found is finding and said in reason


def test_only_unverified_rows_are_withdrawn_and_the_reason_names_each() -> None:
    def check(submission: int, finding: Finding) -> Check:
        return Check(submission, f"u{submission}", finding, f"why {submission}", "OK", 0.1, 0.2, 9.0, 1400, 0.3)

    verification = Verification(
        "2026-11-01T13:00:00Z", "fib", "s1", "2026-11-01T12:00:00Z",
        (check(1, Finding.VERIFIED), check(2, Finding.UNVERIFIED), check(3, Finding.BORDERLINE)),
    )  # fmt: skip
    assert verification.withdrawn() == {2}
    assert "submission 2 (u2): why 2" in verification.withdrawal_reason()
    assert "u3" not in verification.withdrawal_reason()
    assert [Check.from_record(c) for c in verification.payload()["checks"]] == list(verification.checks)
