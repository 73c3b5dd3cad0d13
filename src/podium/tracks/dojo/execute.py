"""Stage ``execute``: run a program in the sandbox and read the terms it printed (docs/rules/dojo-platform.md §5–§6).

The program runs as ``python3 -s -S -P -B solver.py`` (not ``-I``, which would ignore the two settings below)
with no arguments, empty stdin, a cleared environment, a fixed hash seed and Python's 4,300-digit limit on
printing integers lifted. The sandbox's reader stops the program once ``n_check`` lines have arrived.

A run stopped at the wall limit that waited for a CPU for at least ``STARVED_SHARE`` of its wall time was starved by
the host's other work rather than slow: it is run again **alone** (``host_gate``: no other sandboxed run on the host
meanwhile) and judged on that run. A program that sleeps waits for no CPU and keeps its time limit.

A run that printed ``n_check`` complete lines is judged on them whatever it did afterwards — crashed, ran out of
time or memory — so the verdict does not depend on a race between the reader and the program's end. Its CPU time
counts up to its last line: over the limit by then (the whole process tree's, read when the line came) is a time
limit, however many lines it printed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from podium.core.execution.sandbox import FilterProfile, Limits, RunRequest, RunResult, RunStatus, Sandbox, host_gate
from podium.core.execution.sandbox.root import Entry
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.terms import complete_lines, parse_terms
from podium.tracks.dojo.verdicts import RunVerdict

PYTHON_ARGV = ("python3", "-s", "-S", "-P", "-B")
SOLVER_LIMITS = ScoringRules().solver_limits()  # docs/rules/dojo-platform.md §6 (a season's own are in its rules)
SETTER_LIMITS = Limits(cpu_time_s=10.0, wall_time_s=20.0)
STARVED_SHARE = 0.25
"""The share of its wall time a run stopped at the wall limit must have waited for a CPU to be judged again alone."""
STARVED_NOTE = " (judged again alone: "
"""How a reason says the host kept the first run from a CPU: a fact of the host, not of the program."""

_STATUS_VERDICTS = {
    RunStatus.OK: RunVerdict.OK,
    RunStatus.RUNTIME_ERROR: RunVerdict.RUNTIME_ERROR,
    RunStatus.TIME_LIMIT: RunVerdict.TIME_LIMIT,
    RunStatus.MEMORY_LIMIT: RunVerdict.MEMORY_LIMIT,
    RunStatus.OUTPUT_LIMIT: RunVerdict.OUTPUT_LIMIT,
    RunStatus.INTERNAL_ERROR: RunVerdict.INTERNAL_ERROR,
}


@dataclass(frozen=True, slots=True)
class Execution:
    """How one run ended and the terms it printed (empty unless the verdict is OK)."""

    verdict: RunVerdict
    terms: tuple[str, ...]
    reason: str
    run: RunResult
    first_waited_s: float | None = None  # judged again alone: how long the starved first run waited for a CPU


def python_env(hash_seed: int = 0) -> dict[str, str]:
    """The environment a sandboxed Python program gets on top of the sandbox's cleared one."""
    return {"PYTHONHASHSEED": str(hash_seed), "PYTHONINTMAXSTRDIGITS": "0", "PYTHONIOENCODING": "utf-8"}


def execute(
    source: bytes,
    sandbox: Sandbox,
    *,
    n_check: int,
    limits: Limits = SOLVER_LIMITS,
    file_name: str = "solver.py",
    extra_files: Mapping[str, bytes] | None = None,
    hash_seed: int = 0,
    host_paths: tuple[str, ...] = (),
) -> Execution:
    """Run ``source`` as ``file_name`` and read its first ``n_check`` terms.

    The box shows the program the Python interpreter and ``host_paths`` of the host, nothing else (``root.py``).
    """
    request = RunRequest(
        argv=(*PYTHON_ARGV, file_name),
        files={**(extra_files or {}), file_name: source},
        limits=limits,
        env=python_env(hash_seed),
        stop_after_lines=n_check,
        profile=FilterProfile.SOLVER,  # no file locks, watches or page-cache calls: the host's, shared by all runs
        host_paths=host_paths,
    )
    first = sandbox.run(request)
    if not starved(first):
        return _judged(first, n_check)
    with host_gate.alone():
        again = _judged(sandbox.run(request), n_check)
    note = f"{STARVED_NOTE}the first run waited {first.waited_s:.1f} s of its {first.wall_time_s:.1f} s"
    return dataclasses.replace(again, reason=f"{again.reason}{note} for a CPU)", first_waited_s=first.waited_s)


def solver_view(host_paths: tuple[str, ...] = ()) -> tuple[Entry, ...]:
    """What of the host a program's box shows (``root.py``): the files a clean room evicts."""
    request = RunRequest(argv=(*PYTHON_ARGV, "solver.py"), files={}, env=python_env(), host_paths=host_paths)
    return request.root()


def starved(run: RunResult) -> bool:
    """Whether a run reached the wall limit while runnable but kept from a CPU for much of its time."""
    waited = run.waited_s
    return run.status is RunStatus.TIME_LIMIT and waited is not None and waited >= STARVED_SHARE * run.wall_time_s


def _judged(run: RunResult, n_check: int) -> Execution:
    """The verdict and terms of a finished run."""
    if run.status is RunStatus.INTERNAL_ERROR:
        return Execution(RunVerdict.INTERNAL_ERROR, (), f"the sandbox failed: {run.detail}", run)
    enough = complete_lines(run.stdout) >= n_check
    late = run.status is RunStatus.TIME_LIMIT and run.stopped_early  # over the CPU limit by its last line
    if run.status is not RunStatus.OK and (not enough or late):
        return Execution(_STATUS_VERDICTS[run.status], (), run.detail, run)
    terms = parse_terms(run.stdout, n_check, output_ended=not run.stopped_early and run.status is RunStatus.OK)
    if terms.error is not None:
        return Execution(RunVerdict.FORMAT_ERROR, (), terms.error, run)
    said = f"printed {len(terms.values)} terms" if terms.values else "no output: printed no terms"
    return Execution(RunVerdict.OK, terms.values, said, run)
