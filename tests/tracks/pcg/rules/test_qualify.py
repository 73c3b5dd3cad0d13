from __future__ import annotations

import json
from pathlib import Path

import pytest

from podium.cli.main import main
from podium.tracks.pcg.rules.qualify import MAX_WORDS, qualify_prompt
from podium.tracks.pcg.rules.wordcount import count_words
from podium.tracks.pcg.verdicts import PcgVerdict

# docs/rules/pcg.md §1.3: words-count 2.0.2 on the 18 final prompts of 2023
PUBLISHED_WORD_COUNTS = {
    "AdrienTeam": 778, "Back to the future": 722, "BirdBirdBird": 915, "BirdsTeam": 905, "For500": 871,
    "Harry Single Group": 518, "Hope": 61, "JUSTIN": 522, "Prompt_Wranglers": 835, "Saltyfish1884": 624,
    "Soda": 795, "Team Staciiaz": 555, "The Organizer": 553, "albatross": 808, "dereventsolve": 647,
    "hachi": 648, "pixelArt": 354, "zeilde": 168,
}  # fmt: skip


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("drop_block('b31', 8)", 4),
        ("b31b13", 4),
        ("1.5", 1),
        ("a - b", 3),
        ("\u2014", 0),
        ("Hello World\nfoo", 3),
        ("line1\nline2 x", 5),
        ("map's", 1),
        ("<OBJECT>", 1),
        ("", 0),
        (" \n\t ", 0),
        ("一二三", 3),
        ("\u0661\u0662 x", 2),  # Arabic-Indic digits are not [0-9]: the piece has no match and counts 1
    ],
)
def test_word_count_vectors(text: str, words: int) -> None:
    assert count_words(text) == words


def test_word_counts_of_the_2023_prompts(pcg_data: Path) -> None:
    counts = {p.stem: count_words(p.read_text("utf-8")) for p in (pcg_data / "prompts-2023").iterdir()}
    assert counts == PUBLISHED_WORD_COUNTS


def test_exactly_the_published_teams_are_disqualified(pcg_data: Path) -> None:
    verdicts = {
        p.stem: qualify_prompt(p.stem, p.read_text("utf-8")) for p in sorted((pcg_data / "prompts-2023").iterdir())
    }
    failed = {team: q.failure for team, q in verdicts.items() if q.failure is not None}
    assert set(failed) == {"BirdBirdBird", "BirdsTeam", "pixelArt"}
    assert failed["BirdBirdBird"].verdict is PcgVerdict.TOO_MANY_WORDS
    assert "915 words" in failed["BirdBirdBird"].reason
    assert failed["BirdsTeam"].verdict is PcgVerdict.TOO_MANY_WORDS  # also lacks <OBJECT>, but length fails first
    assert failed["pixelArt"].verdict is PcgVerdict.DISALLOWED_CHARACTERS
    assert "U+00B0" in failed["pixelArt"].reason


def test_limits_and_tolerated_whitespace() -> None:
    exactly = " ".join(["word"] * (MAX_WORDS - 1)) + " <OBJECT>"
    assert qualify_prompt("t", exactly).qualified
    assert not qualify_prompt("t", exactly + " more").qualified
    assert qualify_prompt("t", "\ufeffDraw <OBJECT>\u00a0").qualified  # BOM and NBSP survive the JS trim
    # the leftover is trimmed as a whole, so whitespace-only leftovers pass wherever they stand
    assert qualify_prompt("t", "Draw\u00a0the <OBJECT>").qualified
    mixed = qualify_prompt("t", "Draw\u00a0the 90° <OBJECT>")
    assert mixed.failure is not None and mixed.failure.verdict is PcgVerdict.DISALLOWED_CHARACTERS
    missing = qualify_prompt("t", "Draw the <object>")
    assert missing.failure is not None and missing.failure.verdict is PcgVerdict.NO_OBJECT_TOKEN


def test_qualify_command_copies_qualified_prompts(pcg_data: Path, copy_tree, capsys) -> None:  # type: ignore[no-untyped-def]
    prompts = copy_tree(pcg_data / "prompts-2023", "prompts")
    with pytest.raises(SystemExit) as exit_info:
        main(["pcg", "qualify", str(prompts), "--json"])
    assert exit_info.value.code == 0
    report = {row["team"]: row for row in json.loads(capsys.readouterr().out)}
    assert {t for t, r in report.items() if not r["qualified"]} == {"BirdBirdBird", "BirdsTeam", "pixelArt"}
    copied = sorted(p.name for p in (prompts.parent / "qualified").iterdir())
    assert len(copied) == 15 and "pixelArt.txt" not in copied and "BirdsTeam.TXT" not in copied
    assert list((prompts.parent / "logs").glob("qualification_log_*.txt"))
