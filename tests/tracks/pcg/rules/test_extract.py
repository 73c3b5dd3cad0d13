from __future__ import annotations

from pathlib import Path

import pytest

from podium.core.records import StageFailure
from podium.tracks.pcg.competition import open_competition
from podium.tracks.pcg.editions import edition
from podium.tracks.pcg.rules.extract import ExtractedCode, extract_code
from podium.tracks.pcg.stages.extract import run_extract
from podium.tracks.pcg.verdicts import PcgVerdict

FENCE = "```"


def extracted(text: str, prefix: str = "drop_block") -> str | None:
    result = extract_code(text, prefix)
    return result.text if isinstance(result, ExtractedCode) else None


def test_supplementary_pdf_example() -> None:
    response = (
        'Sure! Here is the letter "I":\n'
        f"{FENCE}\n# a vertical bar with a top and a base\n"
        f"ab_drop('b31', 8)\nab_drop('b13', 8)\nab_drop('b31', 8)\n{FENCE}\n"
        "This should be stable."
    )
    assert extracted(response, "ab_drop") == "ab_drop('b31', 8)\nab_drop('b13', 8)\nab_drop('b31', 8)\n"


def test_spec_vector_with_dropped_calls() -> None:
    block = (
        "drop_block(\"b31\",8)\ndrop_block(\"B11\", 3)\nDROP_BLOCK('b11', 4)\ndrop_block('b11', x)\n"
        "for i in range(3):\n    drop_block('b13', 10)\n"
    )
    assert extracted(f"{FENCE}python\n{block}{FENCE}") == "drop_block('b31',8)\ndrop_block('b13', 10)\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            f"{FENCE}\ndrop_block('b11', 1)\n{FENCE} then {FENCE}\ndrop_block('b11', 2)\n{FENCE}",
            "drop_block('b11', 2)\n",
        ),
        (f"{FENCE}\ndrop_block('b11', 1)\n{FENCE}\n{FENCE}\ndrop_block('b11', 2)\n", "drop_block('b11', 1)\n"),
        (f"{FENCE}\ndrop_block('b11', `1`)\n{FENCE}", None),  # a backtick inside the block: never matches
        ("`drop_block('b11', 1)`", None),
        (f"{FENCE}\nmy_drop_block('b11', 3)\n{FENCE}", "drop_block('b11', 3)\n"),  # no word boundary
        (f"{FENCE}\ndrop_block('b11',)\n{FENCE}", "drop_block('b11',)\n"),
        (f"{FENCE}\ndrop_block(|b11|, 2)\n{FENCE}", "drop_block(|b11|, 2)\n"),
        (f"{FENCE}\ndrop_block('b11',\t2)\n{FENCE}", None),  # a tab after the comma is not a space
        (f"{FENCE}\ndrop_block('b11', \u0663)\n{FENCE}", None),  # a non-ASCII digit is not [0-9]
        (f"{FENCE}\n\n{FENCE}", None),
    ],
)
def test_extraction_edge_cases(text: str, expected: str | None) -> None:
    assert extracted(text) == expected


def test_code_not_found_is_a_failure_record() -> None:
    result = extract_code("no code here", "drop_block")
    assert isinstance(result, StageFailure)
    assert result.verdict is PcgVerdict.CODE_NOT_FOUND and result.reason == "Code not found."


def test_reproduces_the_official_extraction(pcg_data: Path, copy_tree) -> None:  # type: ignore[no-untyped-def]
    source = pcg_data / "extraction-2023"
    root = copy_tree(source, "competition")
    for produced in (root / "team1" / "intermediate").rglob("*.txt"):
        produced.unlink()
    summary = run_extract(open_competition(root, edition(2023)))
    verdicts = {event.trial: event.verdict for event in summary.events}
    assert verdicts == {"test.txt": "ok", "test2.txt": "ok", "test3.txt": "code_not_found"}
    for expected in (source / "team1" / "intermediate" / "I").iterdir():
        assert (root / "team1" / "intermediate" / "I" / expected.name).read_bytes() == expected.read_bytes()
    assert not (root / "team1" / "intermediate" / "I" / "test3.txt").exists()
