"""The judge corpus: each solver's folder names the outcome the judge must give it, in the real sandbox."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from podium.core.execution.sandbox import Sandbox
from podium.tracks.dojo.execute import STARVED_NOTE
from podium.tracks.dojo.judge import Judgment, judge_submission
from podium.tracks.dojo.problem import load_problem, setter_terms
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.verdicts import Outcome

CORPUS = Path(__file__).parents[3] / "tracks" / "dojo" / "corpus"  # tests/tracks/dojo/corpus
CASES = sorted(p for p in CORPUS.glob("*/*") if p.parent.name in set(Outcome) and p.suffix in {".py", ".bin"})
RULES = ScoringRules()


@pytest.fixture(scope="module")
def judged(bubblewrap: Sandbox) -> dict[Path, Judgment]:
    problem = load_problem(CORPUS / "problem")
    truth = setter_terms(problem.setter_source, bubblewrap, RULES, where=problem.folder)
    with ThreadPoolExecutor(8) as pool:  # the slow cases wait on limits, not on the CPU
        judgments = pool.map(lambda p: judge_submission(p.read_bytes(), truth, bubblewrap, RULES), CASES)
        return dict(zip(CASES, judgments, strict=True))


def test_every_outcome_has_cases() -> None:
    assert {p.parent.name for p in CASES} == set(Outcome) - {Outcome.INTERNAL_ERROR}


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_case_gets_the_outcome_of_its_folder(case: Path, judged: dict[Path, Judgment]) -> None:
    judgment = judged[case]
    assert judgment.outcome.value == case.parent.name, judgment
    if case.parent.name == Outcome.POLICY_REJECT:
        assert judgment.backend is None  # rejected before it ever ran
    else:
        assert judgment.backend == "bubblewrap" and judgment.isolated


def test_accepted_scores_follow_brevity(judged: dict[Path, Judgment]) -> None:
    golf = judged[CORPUS / "accepted" / "golf_endless.py"]
    assert golf.length == len((CORPUS / "accepted" / "golf_endless.py").read_bytes()) + 1  # canonical adds "\n"
    assert golf.score == 1000 + golf.brevity and golf.brevity == 191  # floor(200 exp(-35/800))
    stage = judged[CORPUS / "stage_only" / "first_150.py"]
    assert stage.score == 200 and stage.brevity == 0


def test_judging_twice_gives_the_same_judgment(bubblewrap: Sandbox, judged: dict[Path, Judgment]) -> None:
    problem = load_problem(CORPUS / "problem")
    truth = setter_terms(problem.setter_source, bubblewrap, RULES, where=problem.folder)
    for case in (CORPUS / "accepted" / "threads.py", CORPUS / "format_error" / "underscores.py"):
        again = judge_submission(case.read_bytes(), truth, bubblewrap, RULES)
        first = judged[case]
        assert (again.verdict, again.stage_pass, again.reward_correct, again.score, again.solver_hash) == (
            first.verdict,
            first.stage_pass,
            first.reward_correct,
            first.score,
            first.solver_hash,
        )


def _measured(reason: str) -> str:
    """A reason with what the host decides masked: measured seconds and MiB differ between two runs of one program,
    and a run the busy host starved of CPU says so (it was judged again alone)."""
    return re.sub(r"\d+\.\d+|peak \d+", "#", reason.split(STARVED_NOTE)[0])


def test_no_verdict_or_reason_a_submitter_sees_depends_on_the_hidden_terms(
    bubblewrap: Sandbox, judged: dict[Path, Judgment]
) -> None:
    problem = load_problem(CORPUS / "problem")
    truth = setter_terms(problem.setter_source, bubblewrap, RULES, where=problem.folder)
    shown = problem.n_visible
    other = (*truth[:shown], *(str(int(term) + 1) for term in truth[shown:]))  # every hidden term differs
    with ThreadPoolExecutor(8) as pool:
        again = dict(zip(CASES, pool.map(lambda p: judge_submission(p.read_bytes(), other, bubblewrap, RULES), CASES),
                         strict=True))  # fmt: skip
    assert any(judged[case].reward_correct != again[case].reward_correct for case in CASES)  # the terms did matter
    for case in CASES:
        first, second = judged[case], again[case]
        assert (first.verdict, _measured(first.reason)) == (second.verdict, _measured(second.reason)), case
