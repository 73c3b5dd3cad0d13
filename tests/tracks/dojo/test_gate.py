"""The gates count the leading terms that match."""

from __future__ import annotations

from podium.tracks.dojo.gate import gate
from podium.tracks.dojo.rules import ScoringRules

RULES = ScoringRules()


def test_gates_count_leading_terms() -> None:
    truth = [str(i * i) for i in range(200)]
    assert gate(truth, truth, RULES).reward_correct
    assert gate(truth[:100], truth, RULES) == gate(truth[:100], truth, RULES)
    stage_only = gate(truth[:100] + ["x"] * 100, truth, RULES)
    assert stage_only.stage_pass and not stage_only.reward_correct and stage_only.matching_prefix == 100
    assert not gate(truth[:99], truth, RULES).stage_pass
    assert gate(truth[:150], truth, RULES).stage_pass  # fewer terms are judged on what was printed
    wrong_first = gate(["1"] + truth[1:], truth, RULES)
    assert not wrong_first.stage_pass and wrong_first.matching_prefix == 0
    assert gate(truth + ["junk"], truth, RULES).reward_correct  # terms past n_check are never compared
