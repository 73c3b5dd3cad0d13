"""The 2025 winner rule on hand-made standings."""

from __future__ import annotations

from decimal import Decimal

from podium.tracks.pcg.rules.winner import Outcome, Standing, declare_winner

BASE = "baseline_zero_shot"


def _s(team: str, score: str, words: int | None = None) -> Standing:
    return Standing(team, Decimal(score), words)


def test_clear_winner_beats_the_baseline() -> None:
    verdict = declare_winner([_s("a", "30"), _s("b", "45"), _s(BASE, "25")])
    assert (verdict.outcome, verdict.winners, verdict.decided_by) == (Outcome.WINNER, ("b",), "score")
    assert verdict.baseline_score == Decimal(25) and verdict.leader_score == Decimal(45)
    assert verdict.message.startswith("winner: b")


def test_equal_totals_go_to_the_shorter_prompt() -> None:
    verdict = declare_winner([_s("a", "40", 300), _s("b", "40", 120), _s("c", "10", 5), _s(BASE, "10")])
    assert (verdict.outcome, verdict.winners, verdict.decided_by) == (Outcome.WINNER, ("b",), "shorter prompt")
    assert "120 prompt words" in verdict.message


def test_equal_totals_and_equal_prompts_are_co_winners() -> None:
    standings = [_s("a", "40", 120), _s("b", "40", 120), _s("c", "40", 200), _s(BASE, "1")]
    verdict = declare_winner(standings)
    assert (verdict.outcome, verdict.winners, verdict.decided_by) == (Outcome.CO_WINNERS, ("a", "b"), None)
    assert verdict.message.startswith("co-winners: a and b")


def test_unknown_prompt_lengths_leave_the_tie_standing() -> None:
    verdict = declare_winner([_s("a", "40", 120), _s("b", "40"), _s(BASE, "1")])
    assert (verdict.outcome, verdict.winners) == (Outcome.CO_WINNERS, ("a", "b"))
    assert "prompt lengths unknown for b" in verdict.message


def test_scores_equal_only_to_the_twentieth_place_are_not_a_tie() -> None:
    standings = [_s("a", "40.00000000000000000001", 900), _s("b", "40", 1), _s(BASE, "1")]
    assert declare_winner(standings).winners == ("a",)


def test_nobody_beats_the_baseline() -> None:
    verdict = declare_winner([_s("a", "20"), _s("b", "30"), _s(BASE, "30")])  # equal is not beating it
    assert (verdict.outcome, verdict.winners, verdict.leaders) == (Outcome.NO_TEAM_BEATS_BASELINE, (), ("b",))
    assert "no team beats the zero-shot baseline" in verdict.message


def test_baseline_missing_declares_nobody_and_says_so() -> None:
    verdict = declare_winner([_s("a", "60"), _s("b", "40")])
    assert (verdict.outcome, verdict.winners, verdict.leaders) == (Outcome.BASELINE_MISSING, (), ("a",))
    assert verdict.baseline_score is None
    assert "'baseline_zero_shot' was not scored" in verdict.message


def test_other_baselines_and_organiser_entries_do_not_compete() -> None:
    standings = [_s("strong", "50"), _s("team", "30"), _s(BASE, "20")]
    verdict = declare_winner(standings, not_competing=frozenset({"strong"}))
    assert verdict.winners == ("team",)


def test_named_baseline() -> None:
    verdict = declare_winner([_s("team", "30"), _s("zs", "31")], baseline="zs")
    assert verdict.outcome is Outcome.NO_TEAM_BEATS_BASELINE


def test_no_competing_team() -> None:
    verdict = declare_winner([_s(BASE, "100")])
    assert (verdict.outcome, verdict.winners, verdict.leaders) == (Outcome.NO_TEAMS, (), ())


def test_json_keeps_exact_numbers() -> None:
    data = declare_winner([_s("a", "66.66666666666666666667"), _s(BASE, "33.33333333333333333333")]).as_json()
    assert data["outcome"] == "winner" and data["winners"] == ["a"]
    assert data["leaderScore"] == "66.66666666666666666667"
    assert data["baseline"] == {"team": BASE, "normalizedScore": "33.33333333333333333333"}
