"""Judge one submission against one problem: admit → screen → execute → gate → bonus.

Every stage's failure is data: the chain stops at the first ``StageFailure`` and the judgment carries its
verdict and reason. The sandbox runs the solver's box copy (``box_source.py``: its tokens without comments, so a
solver cannot read back bytes the static policy does not count), while L and the hash are the submitted source's.
``INTERNAL_ERROR`` (the sandbox failed, never the contestant's fault) is retried a few times before it is
reported. A claimed method tag is reviewed against the code and the output of a run that printed
its terms (``method_tags.py``). Diversity depends on a problem's whole window of submissions, so the score here is
without it; leaderboards add it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from podium.core.execution.sandbox import Limits, Sandbox
from podium.core.records import StageFailure
from podium.tracks.dojo.admit import AdmittedSource, admit
from podium.tracks.dojo.bonus import brevity_bonus, problem_score
from podium.tracks.dojo.box_source import box_copy
from podium.tracks.dojo.execute import Execution, execute
from podium.tracks.dojo.gate import Gates, gate
from podium.tracks.dojo.method_tags import conflict
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.screen import PolicyFigures, screen
from podium.tracks.dojo.verdicts import Outcome, RunVerdict, outcome_of

INTERNAL_ERROR_ATTEMPTS = 3
STDERR_SHOWN = 2048
JUDGE_VERSION = "2026.11.29.2"
"""Stored with every judgment: a change that can give a stored submission another verdict, gates or tag override
gets a new one, so a replay tells a judge that changed since from a tampered row (docs/design/dojo.md, "Judge
versions", lists what each changed)."""
UNCOPYABLE = (
    "the judge could not copy this source into the sandbox without its comments and keep its meaning "
    "(a layout it does not know; please report it); it was not run"
)


@dataclass(frozen=True, slots=True)
class Judgment:
    """The verdict, gates and score (without diversity) of one submission."""

    verdict: RunVerdict
    reason: str
    stage_pass: bool
    reward_correct: bool
    length: int | None  # L_chars; None when the source was not admitted
    solver_hash: str | None
    brevity: int
    score: int
    screened: bool  # False when the static policy was skipped on purpose (local checks of the sandbox)
    policy: PolicyFigures | None
    backend: str | None  # the sandbox that ran it; None when it never ran
    isolated: bool | None
    wall_time_s: float | None
    tag_override: str | None = None  # why the claimed method tag is ignored (it then counts as "unspecified")
    stderr: str = ""  # the last STDERR_SHOWN bytes the program wrote there: for its author, never published
    cpu_time_s: float | None = None
    cpu_counted_by: str | None = None  # "cgroup" (the whole process tree) or "rusage" (the program's own)
    peak_memory_mib: float | None = None
    waited_s: float | None = None  # at the wall limit, the first run's wait for a CPU (a starved one ran again alone)

    @property
    def outcome(self) -> Outcome:
        """The one-word outcome (the folder a fixture of it is filed in)."""
        return outcome_of(self.verdict, stage_pass=self.stage_pass, reward_correct=self.reward_correct)


def judge_submission(
    raw: bytes,
    truth: Sequence[str],
    sandbox: Sandbox,
    rules: ScoringRules,
    *,
    apply_screen: bool = True,
    limits: Limits | None = None,
    method_tag: str | None = None,
    internal_error_attempts: int = INTERNAL_ERROR_ATTEMPTS,
) -> Judgment:
    """Judge the solver source ``raw`` against the setter's terms ``truth``; ``method_tag`` is the claimed tag.

    A run the sandbox failed is tried up to ``internal_error_attempts`` times here; the queue's workers pass 1,
    since the queue itself retries, possibly on another worker.
    """
    admitted = admit(raw, max_bytes=rules.max_source_bytes)
    if isinstance(admitted, StageFailure):
        return _rejected(admitted, None, apply_screen)
    policy: PolicyFigures | None = None
    if apply_screen:
        screened = screen(admitted.text, rules)
        if isinstance(screened, StageFailure):
            return _rejected(screened, admitted, apply_screen)
        policy = screened.figures
    boxed = box_copy(admitted.text)
    if boxed is None and apply_screen:  # the screen parsed it, so the rebuild is what failed: never run comments
        return _rejected(StageFailure(RunVerdict.POLICY_REJECT, UNCOPYABLE), admitted, apply_screen)
    runnable = admitted.canonical if boxed is None else boxed.encode("utf-8")  # unscreened: Python says what is wrong
    execution = _execute_with_retries(
        runnable, sandbox, rules, limits or rules.solver_limits(), internal_error_attempts
    )
    run = execution.run
    gates = gate(execution.terms, truth, rules) if execution.verdict is RunVerdict.OK else Gates(False, False, 0)
    brevity = brevity_bonus(admitted.length, rules) if gates.reward_correct else 0
    score = problem_score(
        stage_pass=gates.stage_pass,
        reward_correct=gates.reward_correct,
        length=admitted.length,
        diversity=0,
        rules=rules,
    )
    return Judgment(
        verdict=execution.verdict,
        reason=execution.reason,
        stage_pass=gates.stage_pass,
        reward_correct=gates.reward_correct,
        length=admitted.length,
        solver_hash=admitted.sha256,
        brevity=brevity,
        score=score,
        screened=apply_screen,
        policy=policy,
        backend=run.backend,
        isolated=run.isolated,
        wall_time_s=run.wall_time_s,
        tag_override=(
            conflict(
                method_tag,
                admitted.text,
                execution.terms,
                built_code_unreviewable=rules.names_count_as_payload,
            )
            if method_tag is not None and execution.verdict is RunVerdict.OK
            else None
        ),
        stderr=run.stderr_tail[-STDERR_SHOWN:].decode("utf-8", "replace"),
        cpu_time_s=run.cpu_time_s,
        cpu_counted_by=run.cpu_counted_by,
        peak_memory_mib=run.peak_memory_mib,
        waited_s=execution.first_waited_s if execution.first_waited_s is not None else run.waited_s,
    )


def _execute_with_retries(
    source: bytes, sandbox: Sandbox, rules: ScoringRules, limits: Limits, attempts: int
) -> Execution:
    for _ in range(max(attempts, 1)):
        execution = execute(source, sandbox, n_check=rules.n_check, limits=limits, host_paths=rules.box_host_paths)
        if execution.verdict is not RunVerdict.INTERNAL_ERROR:
            break
    return execution


def failed_judgment(reason: str, *, length: int | None, solver_hash: str | None) -> Judgment:
    """The ``INTERNAL_ERROR`` judgment of a submission the judge itself failed on (never the contestant's fault)."""
    return Judgment(
        verdict=RunVerdict.INTERNAL_ERROR,
        reason=reason,
        stage_pass=False,
        reward_correct=False,
        length=length,
        solver_hash=solver_hash,
        brevity=0,
        score=0,
        screened=False,
        policy=None,
        backend=None,
        isolated=None,
        wall_time_s=None,
    )


def _rejected(failure: StageFailure, admitted: AdmittedSource | None, screened: bool) -> Judgment:
    return Judgment(
        verdict=RunVerdict(failure.verdict.value),
        reason=failure.reason,
        stage_pass=False,
        reward_correct=False,
        length=admitted.length if admitted else None,
        solver_hash=admitted.sha256 if admitted else None,
        brevity=0,
        score=0,
        screened=screened,
        policy=None,
        backend=None,
        isolated=None,
        wall_time_s=None,
    )
