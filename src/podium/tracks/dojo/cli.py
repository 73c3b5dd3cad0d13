"""``podium dojo ...``: judge a solver locally; the platform's commands build on the same stages.

``podium dojo judge`` exits 0 only when the solver is accepted (Reward Correct), and otherwise with a code per
outcome (``JUDGE_EXIT_CODES``), so a script or CI job can tell a wrong answer from a timeout without parsing the
output. The codes start at 10, above podium's error codes (1 to 6) and click's usage error (2): those still mean
that nothing was judged.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import click

from podium.cli.options import json_option
from podium.core.reporting.tables import console_json
from podium.core.storage.files import read_bytes
from podium.tracks.dojo.judge import STDERR_SHOWN, Judgment, judge_submission
from podium.tracks.dojo.jury_cli import register_jury
from podium.tracks.dojo.operator_cli import register, sandbox_for, sandbox_option
from podium.tracks.dojo.problem import load_problem, setter_terms
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.verdicts import Outcome

JUDGE_EXIT_CODES: dict[Outcome, int] = {
    Outcome.ACCEPTED: 0,
    Outcome.STAGE_ONLY: 10,
    Outcome.WRONG_ANSWER: 11,
    Outcome.FORMAT_ERROR: 12,
    Outcome.RUNTIME_ERROR: 13,
    Outcome.TIME_LIMIT: 14,
    Outcome.MEMORY_LIMIT: 15,
    Outcome.OUTPUT_LIMIT: 16,
    Outcome.POLICY_REJECT: 17,
    Outcome.INTERNAL_ERROR: 18,
}


@click.group()
def dojo() -> None:
    """Sequence Dojo: shortest programs that print a setter's integer sequence."""


@dojo.command()
@click.argument("solver", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--problem",
    "problem_dir",
    required=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="folder with setter.py and an optional problem.json",
)
@json_option()
@click.option(
    "--no-screen", is_flag=True, help="skip the static policy (to test the sandbox itself); said in the output"
)
@sandbox_option
@click.option("--method-tag", help="the method tag you would claim in solution.json: see whether the judge accepts it")
def judge(
    solver: Path, problem_dir: Path, as_json: bool, no_screen: bool, backend: str, method_tag: str | None
) -> None:
    """Judge SOLVER (a solver.py) against the problem in --problem, exactly as the platform would.

    Exit status: 0 accepted (Reward Correct); 10 Stage Pass only; 11 wrong answer; 12 format error;
    13 runtime error; 14 time limit; 15 memory limit; 16 output limit; 17 policy reject; 18 internal error.
    """
    problem = load_problem(problem_dir)
    rules = ScoringRules()
    sandbox = sandbox_for(backend)
    truth = setter_terms(problem.setter_source, sandbox, rules, where=problem_dir / "setter.py")
    judgment = judge_submission(
        read_bytes(solver), truth, sandbox, rules, apply_screen=not no_screen, method_tag=method_tag
    )
    if as_json:
        click.echo(console_json(judgment_json(judgment) | {"method_tag": method_tag}))
    else:
        click.echo(judgment_text(judgment, method_tag))
    click.get_current_context().exit(JUDGE_EXIT_CODES[judgment.outcome])


register(dojo)
register_jury(dojo, dojo.commands["user"])  # type: ignore[arg-type]  # the group register made


def judgment_json(judgment: Judgment) -> dict[str, Any]:
    """A judgment as a JSON object (diversity is not included: it depends on other submissions)."""
    return {
        "verdict": judgment.verdict.value,
        "outcome": judgment.outcome.value,
        "reason": judgment.reason,
        "stage_pass": judgment.stage_pass,
        "reward_correct": judgment.reward_correct,
        "length": judgment.length,
        "solver_hash": judgment.solver_hash,
        "brevity_bonus": judgment.brevity,
        "score": judgment.score,
        "diversity_included": False,
        "screened": judgment.screened,
        "policy": None if judgment.policy is None else dataclasses.asdict(judgment.policy),
        "sandbox": judgment.backend,
        "isolated": judgment.isolated,
        "wall_time_s": None if judgment.wall_time_s is None else round(judgment.wall_time_s, 4),
        "tag_override": judgment.tag_override,
        "stderr": judgment.stderr,
    }


def judgment_text(judgment: Judgment, method_tag: str | None = None) -> str:
    """A judgment as a few lines for a person."""
    yes = {True: "yes", False: "no"}
    lines = [
        f"verdict: {judgment.verdict.value} ({judgment.outcome.value}): {judgment.reason}",
        f"Stage Pass: {yes[judgment.stage_pass]}   Reward Correct: {yes[judgment.reward_correct]}",
        f"L: {'-' if judgment.length is None else judgment.length} bytes   brevity bonus: {judgment.brevity}   "
        f"score: {judgment.score} (without the diversity bonus, which depends on other submissions)",
    ]
    if method_tag is not None:
        review = f"IGNORED, counts as unspecified: {judgment.tag_override}" if judgment.tag_override else "accepted"
        lines.append(f"method tag: {method_tag}: {review}")
    if not judgment.screened:
        lines.append("static policy: SKIPPED (--no-screen); the platform would apply it")
    if judgment.backend is not None:
        isolation = "isolated" if judgment.isolated else "NOT ISOLATED: weaker backend"
        lines.append(f"sandbox: {judgment.backend} ({isolation})")
    if judgment.stderr.strip():
        lines.append(f"stderr (its last {STDERR_SHOWN} bytes at most):")
        lines.extend(f"  {line}" for line in judgment.stderr.rstrip().splitlines())
    return "\n".join(lines)
