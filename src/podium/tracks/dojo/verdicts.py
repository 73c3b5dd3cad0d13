"""The closed sets a Sequence Dojo judgment is made of.

``RunVerdict`` is what a submitter learns while a problem is open (docs/rules/dojo-platform.md §6). ``Outcome`` folds
the run verdict and the gates into the one word a fixture corpus is filed by: ``accepted`` (Reward Correct),
``stage_only`` (Stage Pass only), ``wrong_answer`` (ran cleanly, not Stage Pass), or the failed run's verdict.
"""

from __future__ import annotations

import enum

from podium.core.records import Verdict


class RunVerdict(Verdict):
    """How running a submission ended; ``INTERNAL_ERROR`` is never the contestant's fault and is retried."""

    OK = "OK"
    FORMAT_ERROR = "FORMAT_ERROR"
    RUNTIME_ERROR = "RUNTIME_ERROR"
    TIME_LIMIT = "TIME_LIMIT"
    MEMORY_LIMIT = "MEMORY_LIMIT"
    OUTPUT_LIMIT = "OUTPUT_LIMIT"
    POLICY_REJECT = "POLICY_REJECT"
    INTERNAL_ERROR = "INTERNAL_ERROR"


class Outcome(enum.StrEnum):
    """One word per judgment: the folder a fixture of this outcome is filed in."""

    ACCEPTED = "accepted"
    STAGE_ONLY = "stage_only"
    WRONG_ANSWER = "wrong_answer"
    FORMAT_ERROR = "format_error"
    RUNTIME_ERROR = "runtime_error"
    TIME_LIMIT = "time_limit"
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_LIMIT = "output_limit"
    POLICY_REJECT = "policy_reject"
    INTERNAL_ERROR = "internal_error"


def outcome_of(verdict: RunVerdict, *, stage_pass: bool, reward_correct: bool) -> Outcome:
    """The outcome word for a run verdict and the gates it reached."""
    if verdict is not RunVerdict.OK:
        return Outcome(verdict.value.lower())
    if reward_correct:
        return Outcome.ACCEPTED
    return Outcome.STAGE_ONLY if stage_pass else Outcome.WRONG_ANSWER
