"""The block-letter data files: every set loads, with the counts, letters and unclear pictures it was made with."""

from __future__ import annotations

import pytest

from podium.tracks.pcg.classifiers import LETTERS
from tools.pcg_classifier.block_letters import picture_grid
from tools.pcg_classifier.letter_sets import SET_NAMES, letter_sets, load_letter_set, parse_letter_set

# set: (pictures, letters it has designs for, pictures kept apart as unclear)
EXPECTED = {
    "first": (52, LETTERS, {}),
    "second": (60, LETTERS, {}),
    "third": (64, LETTERS, {}),
    "fourth": (58, LETTERS, {}),
    "fifth": (61, "ABCDEFGHIJKLMNOPQRSTUVWXY", {"UNCLEAR_Z": 3}),
    "sixth": (47, "ABCDEFGHIJKLMNOPQRTUVWXYZ", {"UNCLEAR_M": 1}),
    "seventh": (52, LETTERS, {}),
    "eighth": (57, LETTERS, {}),
    "ninth": (64, "ABCDEFGHIJKLMNOPQRSTUWXYZ", {"UNCLEAR_V": 2}),
}


def rows(picture: str) -> tuple[str, ...]:
    return tuple(picture.split("\n"))


@pytest.mark.parametrize("name", SET_NAMES)
def test_each_set_has_its_counts_and_letters(name: str) -> None:
    count, letters, unclear = EXPECTED[name]
    letter_set = load_letter_set(name)
    assert list(letter_set.designs) == sorted(letter_set.designs) and set(letter_set.designs) == set(letters)
    assert sum(len(pictures) for pictures in letter_set.designs.values()) == count
    assert {label: len(pictures) for label, pictures in letter_set.unclear.items()} == unclear
    for pictures in [*letter_set.designs.values(), *letter_set.unclear.values()]:
        for picture in pictures:
            assert picture_grid(picture).any() and all(set(row) <= set("#=|.") for row in rows(picture))


def test_no_picture_appears_twice_across_the_sets() -> None:
    seen: set[tuple[str, ...]] = set()
    total = 0
    for letter_set in letter_sets().values():
        for pictures in [*letter_set.designs.values(), *letter_set.unclear.values()]:
            seen |= {rows(picture) for picture in pictures}
            total += len(pictures)
    assert len(seen) == total == 521


def test_report_keys_are_the_weights_json_keys() -> None:
    assert list(letter_sets())[:3] == ["block_letters", "block_letters_second_set", "block_letters_third_set"]
    assert load_letter_set("ninth").report_key == "block_letters_ninth_set"


def test_the_format_keeps_order_and_rejects_stray_lines() -> None:
    text = "; a comment\n\n[B]\n===\n#.#\n\n[A]\n#\n[UNCLEAR_A]\n.#.\n===\n"
    parsed = parse_letter_set(text, "demo")
    assert list(parsed.designs) == ["B", "A"] and parsed.designs["B"] == ("===\n#.#",)
    assert parsed.unclear == {"UNCLEAR_A": (".#.\n===",)}
    with pytest.raises(ValueError, match="line 2"):
        parse_letter_set("[A]\n#x#\n", "demo")
    with pytest.raises(ValueError, match="no rows"):
        parse_letter_set("[A]\n\n", "demo")
