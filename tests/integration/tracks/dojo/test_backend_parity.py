"""Both isolated backends judge alike: every corpus solver and red-team program gets the same verdict from the
fork-server as from bubblewrap, with the same gates, score and hash, and the same kind of reason.

Reasons that carry measured figures (CPU seconds) are compared by kind: their words, with every number masked.
One difference is by design and written down (docs/design/core.md, "The fork-server"): bubblewrap reports a death
by signal N and an exit with status 128 + N alike, the fork-server tells them apart.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from podium.core.execution.sandbox import RunRequest, Sandbox
from podium.tracks.dojo.execute import STARVED_NOTE
from podium.tracks.dojo.judge import Judgment, judge_submission
from podium.tracks.dojo.problem import load_problem, setter_terms
from podium.tracks.dojo.rules import ScoringRules

from .test_corpus import CASES, CORPUS

ATTACKS = Path(__file__).parents[3] / "core" / "sandbox_attacks"
RULES = ScoringRules()


def _kind(reason: str) -> str:
    """A reason with its figures masked, and the notes of the host left out: bubblewrap's on statuses above 128,
    and a starved run's (judged again alone: how busy the host was, not how the program ran)."""
    reason = reason.split(STARVED_NOTE)[0]
    reason = re.sub(r" \(a death by SIG\w+ gives the same status\)", "", reason).replace(
        "exited with status", "exited with code"
    )
    return re.sub(r"\d+(\.\d+)?", "#", reason)


def _judge_all(sandbox: Sandbox) -> dict[Path, Judgment]:
    problem = load_problem(CORPUS / "problem")
    truth = setter_terms(problem.setter_source, sandbox, RULES, where=problem.folder)
    with ThreadPoolExecutor(4) as pool:
        judgments = pool.map(lambda path: judge_submission(path.read_bytes(), truth, sandbox, RULES), CASES)
        return dict(zip(CASES, judgments, strict=True))


@pytest.fixture(scope="module")
def both(bubblewrap: Sandbox, fork_server: Sandbox) -> tuple[dict[Path, Judgment], dict[Path, Judgment]]:
    return _judge_all(bubblewrap), _judge_all(fork_server)


def test_the_setters_terms_are_the_same(bubblewrap: Sandbox, fork_server: Sandbox) -> None:
    problem = load_problem(CORPUS / "problem")
    assert setter_terms(problem.setter_source, bubblewrap, RULES, where=problem.folder) == setter_terms(
        problem.setter_source, fork_server, RULES, where=problem.folder
    )


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_each_solver_is_judged_alike(case: Path, both: tuple[dict[Path, Judgment], dict[Path, Judgment]]) -> None:
    old, new = (judged[case] for judged in both)
    same = ("verdict", "stage_pass", "reward_correct", "length", "solver_hash", "brevity", "score", "isolated")
    assert {name: getattr(new, name) for name in same} == {name: getattr(old, name) for name in same}
    assert _kind(new.reason) == _kind(old.reason), (old.reason, new.reason)
    if old.backend is not None:  # it ran (a policy rejection never does)
        assert (old.backend, new.backend) == ("bubblewrap", "forkserver")


@pytest.mark.parametrize("program", sorted(ATTACKS.glob("*/*er.py")), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_each_red_team_program_ends_alike(program: Path, bubblewrap: Sandbox, fork_server: Sandbox) -> None:
    files = {path.name: path.read_bytes() for path in program.parent.glob("*.py")}
    request = RunRequest(("python3", "-s", "-S", "-B", program.name, "0123456789abcdef"), files)
    old, new = bubblewrap.run(request), fork_server.run(request)
    assert (new.status, new.exit_code, new.backend) == (old.status, old.exit_code, "forkserver"), (old, new)
    assert new.stdout == old.stdout  # what it parked, or found: refused alike, nothing found alike
