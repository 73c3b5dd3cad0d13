"""The recurrence guessers behind the "too easy" warning and the ``linear_recurrence`` tag check, on sequences
whose recurrences are known by hand."""

from __future__ import annotations

import math

import pytest

from podium.tracks.dojo.recurrence import PRIME, berlekamp_massey, linear_recurrence_order, p_recursive, residue

N = 200


def recurrence_terms(first: list[int], step) -> list[int]:  # type: ignore[no-untyped-def]
    terms = list(first)
    while len(terms) < N:
        terms.append(step(len(terms), terms))
    return terms


FIBONACCI = recurrence_terms([0, 1], lambda n, a: a[-1] + a[-2])
FACTORIALS = [math.factorial(n) for n in range(N)]
CATALAN = [math.comb(2 * n, n) // (n + 1) for n in range(N)]
MOTZKIN = recurrence_terms([1, 1], lambda n, a: ((2 * n + 1) * a[-1] + (3 * n - 3) * a[-2]) // (n + 2))
DERANGEMENTS = recurrence_terms([1, 0], lambda n, a: (n - 1) * (a[-1] + a[-2]))


def primes(count: int) -> list[int]:
    found: list[int] = []
    candidate = 2
    while len(found) < count:
        if all(candidate % p for p in found if p * p <= candidate):
            found.append(candidate)
        candidate += 1
    return found


def partitions(count: int) -> list[int]:
    ways = [1] + [0] * (count - 1)
    for part in range(1, count):
        for n in range(part, count):
            ways[n] += ways[n - part]
    return ways


def test_berlekamp_massey_finds_fibonacci_and_a_cubic() -> None:
    assert berlekamp_massey(FIBONACCI[:20]) == [1, 1]
    # n^3 satisfies (1 - x)^4: a(n) = 4a(n-1) - 6a(n-2) + 4a(n-3) - a(n-4)
    assert berlekamp_massey([n**3 for n in range(20)]) == [4, PRIME - 6, 4, PRIME - 1]


@pytest.mark.parametrize(
    ("terms", "known", "order"),
    [(FIBONACCI, 10, 2), ([n**3 for n in range(N)], 10, 4), ([2**n + 3**n for n in range(N)], 10, 2)],
)
def test_constant_coefficient_recurrences_are_guessed(terms: list[int], known: int, order: int) -> None:
    assert linear_recurrence_order(terms, known) == order


def test_a_recurrence_the_known_terms_do_not_determine_is_not_claimed() -> None:
    # Any 10 terms fit some order-5 recurrence; that proves nothing, so primes are not "guessed".
    assert linear_recurrence_order(primes(N), 10) is None
    assert linear_recurrence_order(FACTORIALS, 10) is None  # not C-finite at all


@pytest.mark.parametrize(
    ("name", "terms", "known", "shape"),
    [
        ("factorials: a(n) = n a(n-1)", FACTORIALS, 10, (1, 1)),
        ("Catalan: (n+1) a(n) = (4n-2) a(n-1)", CATALAN, 10, (1, 1)),
        ("Motzkin: (n+2) a(n) = (2n+1) a(n-1) + (3n-3) a(n-2)", MOTZKIN, 20, (2, 1)),
        ("derangements: a(n) = (n-1)(a(n-1) + a(n-2))", DERANGEMENTS, 20, (2, 1)),
    ],
)
def test_p_recursive_sequences_are_guessed(name: str, terms: list[int], known: int, shape: tuple[int, int]) -> None:
    found = p_recursive(terms, known)
    assert found is not None, name
    assert (found.order, found.degree) == shape
    values = [t % PRIME for t in terms]
    assert all(found.residual(values, n) == 0 for n in range(found.order, N))


def test_p_recursive_needs_enough_known_terms_and_never_guesses_primes_or_partitions() -> None:
    # Motzkin's order-2, degree-1 recurrence has 6 unknowns: 10 terms give 8 equations, short of 6 + the margin.
    assert p_recursive(MOTZKIN, 10) is None
    assert p_recursive(primes(N), 30) is None
    assert p_recursive(partitions(N), 30) is None


def test_a_fitted_recurrence_must_predict_every_later_term() -> None:
    # Factorials for 40 terms, then something else: the prefix fits n a(n-1) but the whole does not.
    broken = FACTORIALS[:40] + [t + 1 for t in FACTORIALS[40:]]
    assert p_recursive(broken, 20) is None


def test_terms_longer_than_pythons_int_conversion_limit_have_residues() -> None:
    # Terms may have 10,000 digits; int(str) refuses more than 4,300 by default.
    huge = "7" + "0" * 9994 + "12345"  # 7·10^9999 + 12345, written without int -> str (which is limited too)
    expected = (7 * pow(10, 9999, PRIME) + 12345) % PRIME
    assert residue(huge) == expected
    assert residue("-" + huge) == -expected % PRIME
    assert residue("0") == 0 and residue("-5") == PRIME - 5
