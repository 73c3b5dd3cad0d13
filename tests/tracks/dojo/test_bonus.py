"""Bonuses with hand-computed expectations: brevity, the problem score, method tags, diversity window/dedup/cap."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from podium.tracks.dojo.bonus import (
    OTHER,
    UNSPECIFIED,
    DiversityEntry,
    brevity_bonus,
    diversity_bonuses,
    method_tag,
    problem_score,
    tag_distribution,
)
from podium.tracks.dojo.rules import ScoringRules

RULES = ScoringRules()
T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    # 800 ln 2 = 554.5 is where the bonus crosses 100
    ("length", "bonus"),
    [(0, 200), (1, 199), (554, 100), (555, 99), (800, 73), (2000, 16), (4238, 1), (4239, 0)],
)
def test_brevity_reference_values(length: int, bonus: int) -> None:
    assert brevity_bonus(length, RULES) == bonus


def test_brevity_is_never_negative_and_never_grows_with_length() -> None:
    values = [brevity_bonus(n, RULES) for n in range(0, 6000)]
    assert values[0] == 200 and min(values) == 0
    assert all(a >= b for a, b in zip(values, values[1:], strict=False))
    assert values.index(0) == 4239


def test_problem_score_by_gate() -> None:
    assert problem_score(stage_pass=False, reward_correct=False, length=10, diversity=0, rules=RULES) == 0
    assert problem_score(stage_pass=True, reward_correct=False, length=10, diversity=50, rules=RULES) == 200
    assert problem_score(stage_pass=True, reward_correct=True, length=554, diversity=50, rules=RULES) == 1150


@pytest.mark.parametrize(
    ("value", "tag"),
    [
        ("closed_form", "closed_form"),
        (None, UNSPECIFIED),
        (7, UNSPECIFIED),
        ("", UNSPECIFIED),
        ("   ", UNSPECIFIED),
        ("x" * 64, OTHER),  # a name §6.1 does not give
        ("x" * 65, UNSPECIFIED),
        (" Closed_Form ", "closed_form"),  # case-folded and stripped
        ("ｍａｔｒｉｘ＿ｐｏｗｅｒ", "matrix_power"),  # NFKC: full-width letters are the same tag
        ("closed_f\u043erm", OTHER),  # a Cyrillic о: a look-alike, not a new tag
        ("my_own_trick", OTHER),
    ],
)
def test_method_tags(value: object, tag: str) -> None:
    claim = method_tag(value, RULES)
    assert claim.tag == tag
    assert bool(claim.warning) == (tag == OTHER or (tag == UNSPECIFIED and value is not None)), claim


V2 = ScoringRules(diversity_rule="diversity-v2")


def test_one_user_with_one_solver_under_invented_tags_earns_one_first_tag_bonus_only() -> None:
    # the red team's 47-byte solver under two invented tags: both count as "other", one tag, no shared bonus
    tags = [method_tag(claimed, RULES).tag for claimed in ("trick_a", "closed_f\u043erm")]
    entries = [entry(1, 7, tags[0], 0), entry(2, 7, tags[1], 1)]
    for rules in (RULES, V2):
        assert diversity_bonuses(entries, rules, None) == {1: 30, 2: 0}


def test_under_v2_one_user_counts_under_one_tag_and_unspecified_is_no_claim() -> None:
    alone = [entry(1, 7, "closed_form", 0), entry(2, 7, UNSPECIFIED, 1)]  # a tagged solver and an untagged copy
    assert diversity_bonuses(alone, RULES, None) == {1: 50, 2: 50}  # v0.1: two tags from one user, +50 alone
    assert diversity_bonuses(alone, V2, None) == {1: 30, 2: 0}
    two_users = [entry(1, 7, "closed_form", 0), entry(2, 8, "matrix_power", 1), entry(3, 7, "search_enum", 2)]
    assert diversity_bonuses(two_users, V2, None) == {1: 50, 2: 50, 3: 20}  # 7's later tag counts as closed_form
    untagged_rival = [entry(1, 7, "closed_form", 0), entry(2, 8, UNSPECIFIED, 1)]
    assert diversity_bonuses(untagged_rival, V2, None) == {1: 30, 2: 0}  # no second tag: no shared bonus


def test_seasons_created_now_get_diversity_v2_and_stored_ones_keep_what_they_stored() -> None:
    assert ScoringRules.for_new_season().diversity_rule == "diversity-v2"
    assert ScoringRules.for_new_season({"diversity_rule": "v0.1"}).diversity_rule == "v0.1"
    assert ScoringRules.from_json({}).diversity_rule == "v0.1"  # a season stored before the rule existed


def entry(sid: int, user: int, tag: str, minutes: int, *, correct: bool = True, sha: str = "") -> DiversityEntry:
    return DiversityEntry(sid, user, tag, T0 + timedelta(minutes=minutes), sha or f"{sid:064x}", correct)


def test_one_tag_gets_only_the_first_bonus() -> None:
    entries = [entry(1, 1, "closed_form", 0), entry(2, 2, "closed_form", 5)]
    assert diversity_bonuses(entries, RULES, None) == {1: 30, 2: 0}


def test_two_tags_share_twenty_and_the_cap_is_fifty() -> None:
    entries = [
        entry(1, 1, "closed_form", 0),  # first of its tag: 30 + 20 shared = 50
        entry(2, 2, "linear_recurrence", 1),  # first of its tag: 30 + 20 = 50
        entry(3, 3, "closed_form", 2),  # shared only: 20
        entry(4, 4, "closed_form", 3, correct=False),  # not Reward Correct: nothing
    ]
    assert diversity_bonuses(entries, RULES, None) == {1: 50, 2: 50, 3: 20, 4: 0}


def test_cap_binds_when_the_parameters_exceed_it() -> None:
    generous = ScoringRules(diversity_first_tag_bonus=40)
    entries = [entry(1, 1, "a", 0), entry(2, 2, "b", 1)]
    assert diversity_bonuses(entries, generous, None) == {1: 50, 2: 50}  # 40 + 20 capped at 50


def test_window_ends_at_the_freeze() -> None:
    freeze = T0 + timedelta(minutes=10)
    entries = [entry(1, 1, "a", 0), entry(2, 2, "b", 10), entry(3, 3, "c", 11)]
    # 3 came after the freeze: its tag does not count, and it gets nothing
    assert diversity_bonuses(entries, RULES, freeze) == {1: 50, 2: 50, 3: 0}
    assert diversity_bonuses(entries, RULES, T0 + timedelta(minutes=5)) == {1: 30, 2: 0, 3: 0}


def test_dedup_keeps_the_earliest_per_user_and_tag() -> None:
    # user 1 submits tag "a" twice; the earliest (id 5, at minute 0) is the one that can be first of its tag.
    entries = [entry(4, 1, "a", 3), entry(5, 1, "a", 0), entry(6, 2, "a", 1)]
    assert diversity_bonuses(entries, RULES, None) == {4: 0, 5: 30, 6: 0}


def test_dedup_ties_break_on_hash_then_id() -> None:
    same_time = [entry(2, 1, "a", 0, sha="b" * 64), entry(1, 2, "a", 0, sha="a" * 64)]
    assert diversity_bonuses(same_time, RULES, None) == {1: 30, 2: 0}  # smaller hash first
    same_hash = [entry(9, 1, "a", 0, sha="c" * 64), entry(8, 2, "a", 0, sha="c" * 64)]
    assert diversity_bonuses(same_hash, RULES, None) == {8: 30, 9: 0}  # then the smaller id


def test_spam_of_one_user_cannot_make_a_second_tag_count_twice() -> None:
    entries = [entry(1, 1, "a", 0), *(entry(10 + i, 2, "b", 1 + i) for i in range(5))]
    bonuses = diversity_bonuses(entries, RULES, None)
    assert bonuses[1] == 50 and bonuses[10] == 50  # first of "b"
    assert all(bonuses[10 + i] == 20 for i in range(1, 5))  # later copies: only the shared bonus


def test_unspecified_is_a_tag_of_its_own_and_diversity_can_be_disabled() -> None:
    entries = [entry(1, 1, UNSPECIFIED, 0), entry(2, 2, "closed_form", 1)]
    assert diversity_bonuses(entries, RULES, None) == {1: 50, 2: 50}
    assert diversity_bonuses(entries, ScoringRules(diversity_enabled=False), None) == {1: 0, 2: 0}
    assert tag_distribution(["closed_form", UNSPECIFIED, "closed_form"]) == {"closed_form": 2, UNSPECIFIED: 1}
