"""The anti-hardcode rule's gaps, and the payload budget a season can choose to close them.

The smallest table that passes the scoring rules v0.1 (docs/rules/dojo-scoring.md §3; a red team's): 200 random 6-digit
terms in one base-91 string, 613 string characters of the 2,000 allowed, 1,083 points. A hex literal is one numeric
token of any size, one astral character holds 20 bits. v0.1 stays the default, word for word; ``payload-budget-v1`` caps
the literal payload.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from podium.core.execution.sandbox import Sandbox
from podium.tracks.dojo.judge import judge_submission
from podium.tracks.dojo.problem import setter_terms
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.screen import literal_payload

DOJO_TESTS = Path(__file__).parents[3] / "tracks" / "dojo"  # tests/tracks/dojo: payload/ and corpus/
TABLES = ("base91_table.py", "hex_table.py", "astral_table.py")
V01 = ScoringRules()
BUDGET = ScoringRules(literal_policy="payload-budget-v1")
V2 = ScoringRules(literal_policy="payload-budget-v2")


@pytest.fixture(scope="module")
def truth(bubblewrap: Sandbox) -> tuple[str, ...]:
    setter = DOJO_TESTS / "payload" / "setter.py"
    return setter_terms(setter.read_bytes(), bubblewrap, V01, where=setter)


@pytest.mark.parametrize("table", TABLES)
def test_a_table_passes_v01_and_is_published_with_its_payload(
    table: str, truth: tuple[str, ...], bubblewrap: Sandbox
) -> None:
    source = (DOJO_TESTS / "payload" / table).read_bytes()
    judged = judge_submission(source, truth, bubblewrap, V01)
    assert judged.reward_correct and judged.policy is not None, judged  # the scoring rules v0.1, word for word
    assert judged.policy.literal_payload_bytes == literal_payload(source.decode())
    assert judged.policy.literal_payload_bytes > 0.8 * len(source)  # mostly payload: what the audit table shows


def test_the_base91_table_scores_as_the_red_team_found(truth: tuple[str, ...], bubblewrap: Sandbox) -> None:
    judged = judge_submission((DOJO_TESTS / "payload" / "base91_table.py").read_bytes(), truth, bubblewrap, V01)
    assert judged.policy is not None and judged.policy.string_literal_chars == 613
    assert (judged.length, judged.score) == (701, 1083)


@pytest.mark.parametrize("rules", [BUDGET, V2], ids=["v1", "v2"])
@pytest.mark.parametrize("table", TABLES)
def test_the_payload_budget_rejects_every_table(
    table: str, rules: ScoringRules, truth: tuple[str, ...], bubblewrap: Sandbox
) -> None:
    judged = judge_submission((DOJO_TESTS / "payload" / table).read_bytes(), truth, bubblewrap, rules)
    assert judged.verdict.value == "POLICY_REJECT" and "bytes of literal payload" in judged.reason
    assert "(at most 256 under the season's payload budget)" in judged.reason


@pytest.mark.parametrize("rules", [BUDGET, V2], ids=["v1", "v2"])
def test_the_payload_budget_accepts_every_honest_solver_of_the_corpus(rules: ScoringRules) -> None:
    from podium.tracks.dojo.screen import screen

    accepted = sorted((DOJO_TESTS / "corpus" / "accepted").glob("*.py"))
    assert accepted
    for path in accepted:
        assert not hasattr(screen(path.read_text(), rules), "verdict"), path


def test_under_v2_a_tag_claimed_for_code_run_through_exec_counts_as_unspecified(
    truth: tuple[str, ...], bubblewrap: Sandbox
) -> None:
    # the red team's tuple-shift Fibonacci inside exec("..."), claiming closed_form, kept its tag before v2
    source = b'exec("a,b=0,1\\nfor _ in range(200):print(a);a,b=b,a+b")\n'
    before = judge_submission(source, truth, bubblewrap, BUDGET, method_tag="closed_form")
    assert before.verdict.value == "OK" and before.tag_override is None
    judged = judge_submission(source, truth, bubblewrap, V2, method_tag="closed_form")
    assert judged.tag_override is not None and "runs code it builds" in judged.tag_override


@pytest.mark.parametrize(
    ("source", "payload"),
    [
        ("print(0x1F, 0o17, 0b101, 1_000, 1.5e10, 3j, .5)", 2 + 2 + 3 + 4 + 4 + 1 + 1),
        ("print('héllo', b'ab', f'x{1}y')", 6 + 2 + 1 + 1 + 1),
        ('"""doc"""\nprint(1)', 3 + 1),
        ("print(" + "9" * 4400 + ")", 4400),  # parsed as the sandbox runs it: no 4,300-digit limit
    ],
)
def test_the_literal_payload_counts_digits_and_bytes(source: str, payload: int) -> None:
    assert literal_payload(source + "\n") == payload


def test_a_long_literal_is_judged_on_its_merits(truth: tuple[str, ...], bubblewrap: Sandbox) -> None:
    # before, the judge parsed under Python's 4,300-digit limit and advised sys.set_int_max_str_digits()
    long_literal = f"x={'7' * 4400}\nprint(len(str(x)))\n".encode()
    judged = judge_submission(long_literal, truth, bubblewrap, V01)
    assert judged.verdict.value == "OK" and "set_int_max_str_digits" not in judged.reason, judged


def test_a_season_stores_its_literal_policy_and_refuses_an_unknown_one() -> None:
    assert ScoringRules.from_json(BUDGET.to_json()) == BUDGET
    assert ScoringRules.from_json({}).literal_policy == "v0.1"  # a season stored before the field: v0.1
    with pytest.raises(Exception, match="unknown literal_policy"):
        ScoringRules(literal_policy="strict")


def test_reveal_publishes_each_accepted_solvers_payload_beside_its_l(bubblewrap: Sandbox, tmp_path: Path) -> None:
    import json
    from datetime import UTC, datetime

    from podium.core.clock import ManualClock
    from podium.core.storage.sql import sqlite_url
    from podium.tracks.dojo.platform import Dojo
    from podium.tracks.dojo.problem import ProblemFiles
    from podium.tracks.dojo.records import Role
    from podium.tracks.dojo.store import audit_entries, open_store
    from podium.tracks.dojo.worker import work
    from tests.needs import need_module

    url = sqlite_url(tmp_path / "dojo.sqlite3")
    dojo = Dojo(open_store(url), ManualClock(datetime(2026, 11, 1, tzinfo=UTC)), lambda: bubblewrap)
    dojo.add_user("sam", Role.SETTER)
    ann, _ = dojo.add_user("ann", Role.SOLVER)
    dojo.create_season("s1", ScoringRules())  # v0.1: the table is accepted, and its payload published
    setter = (DOJO_TESTS / "payload" / "setter.py").read_bytes()
    dojo.add_problem("s1", "random", "sam", ProblemFiles(Path("random"), setter, "Random", "", 0, 10))
    assert dojo.validate("random").accepted
    dojo.open("random")
    table = (DOJO_TESTS / "payload" / "base91_table.py").read_bytes()
    dojo.submit(ann, "random", table)
    assert work(dojo, bubblewrap) == 1
    dojo.freeze("random")
    dojo.reveal("random")
    expected = [{"submission": 1, "user": "ann", "L": 701, "literal_payload_bytes": literal_payload(table.decode())}]
    with dojo.engine.connect() as db:
        revealed = json.loads(next(e.payload for e in audit_entries(db) if e.kind == "revealed"))
    assert revealed["literal_payloads"] == expected
    need_module("fastapi", "web")
    from fastapi.testclient import TestClient

    from podium.web.app import create_app

    with TestClient(create_app({"db": url}), base_url="http://testserver/dojo") as client:
        assert client.get("/api/problems/random/payloads").json() == expected
        page = client.get("/problems/random").text
    assert "Literal payload of Reward Correct submissions" in page and ">701<" in page
