from __future__ import annotations

from decimal import Decimal

from podium.core.ranking.leaderboard import TieBreak, TieMethod, rank_entries

Entry = tuple[str, Decimal, int | None]  # name, score, prompt length


def ranks(entries: list[Entry], method: TieMethod = TieMethod.SHARED) -> list[tuple[int, str, str | None]]:
    tie_breaks: list[TieBreak[Entry]] = [TieBreak("shorter prompt", lambda e: e[2])]
    ranked = rank_entries(entries, lambda e: e[1], tie_breaks=tie_breaks, method=method)
    return [(r.rank, r.entry[0], r.decided_by) for r in ranked]


def test_higher_scores_rank_first() -> None:
    assert ranks([("a", Decimal(1), None), ("b", Decimal(3), None), ("c", Decimal(2), None)]) == [
        (1, "b", None),
        (2, "c", None),
        (3, "a", None),
    ]


def test_shorter_prompt_breaks_a_tie_and_equal_prompts_share_the_rank() -> None:
    entries = [("long", Decimal(5), 300), ("short", Decimal(5), 100), ("same", Decimal(5), 300), ("low", Decimal(1), 1)]
    assert ranks(entries) == [
        (1, "short", "shorter prompt"),
        (2, "long", "shorter prompt"),
        (2, "same", "shorter prompt"),
        (4, "low", None),
    ]


def test_unknown_lengths_give_co_winners_and_official_method_keeps_input_order() -> None:
    entries = [("x", Decimal(2), None), ("y", Decimal(2), 10), ("z", Decimal(1), None)]
    assert ranks(entries) == [(1, "x", None), (1, "y", None), (3, "z", None)]
    assert ranks(entries, TieMethod.POSITION) == [(1, "x", None), (2, "y", None), (3, "z", None)]


def test_decimals_that_floats_would_merge_stay_apart() -> None:
    a, b = Decimal("0.10000000000000000001"), Decimal("0.1")
    assert float(a) == float(b)
    assert ranks([("b", b, None), ("a", a, None)]) == [(1, "a", None), (2, "b", None)]


def test_exact_fractions_tie_exactly_and_differ_where_floats_would_not() -> None:
    from fractions import Fraction

    entries = [("a", Fraction(1, 3)), ("b", Fraction(2, 6)), ("c", Fraction(10**17 + 1, 3 * 10**17))]
    assert float(entries[2][1]) == float(entries[0][1])
    ranked = rank_entries(entries, lambda e: e[1])
    assert [(r.rank, r.entry[0]) for r in ranked] == [(1, "c"), (2, "a"), (2, "b")]
