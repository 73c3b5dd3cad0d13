from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from podium.core.records import StageFailure
from podium.tracks.pcg.competition import open_competition
from podium.tracks.pcg.editions import edition
from podium.tracks.pcg.official.levelxml import LevelParseError, drops_from_level, level_xml_text, parse_level
from podium.tracks.pcg.rules.build import GridLevel, drop_blocks, parse_drop_calls
from podium.tracks.pcg.stages.build import run_build

HEADER = '<?xml version="1.0" encoding="utf-16"?>\n<Level width="3">\n'


def convert(calls: str) -> str:
    text = "".join(f"drop_block({call})\n" for call in calls.split(";"))
    level = drop_blocks(parse_drop_calls(text, "drop_block"))
    return level.reason if isinstance(level, StageFailure) else level_xml_text(level)


def blocks(xml: str) -> list[tuple[str, str, str, str]]:
    return [(o.type, str(o.x), str(o.y), str(o.rotation_deg)) for o in parse_level(xml.encode()).objects]


def test_the_2023_i_example_is_byte_identical_to_result_22() -> None:
    expected = (
        HEADER + '  <Camera x="2" y="0" minWidth="17" maxWidth="22" />\n  <Birds>\n    <Bird type="BirdRed" />\n'
        '  </Birds>\n  <Slingshot x="-9" y="-2.5" />\n  <GameObjects>\n'
        '    <Block type="RectSmall" material="wood" x="2.36015" y="-3.37995" rotation="0" />\n'
        '    <Block type="RectSmall" material="wood" x="2.36015" y="-2.89975" rotation="90" />\n'
        '    <Block type="RectSmall" material="wood" x="2.36015" y="-2.41955" rotation="0" />\n'
        "  </GameObjects>\n</Level>"
    )
    assert convert("'b31', 8;'b13', 8;'b31', 8") == expected


@pytest.mark.parametrize(
    ("calls", "error"),
    [
        ("'b31', 0", "Width boundary is intruded."),
        ("'b31', 19", "Width boundary is intruded."),
        ("'b11', 20", "Height boundary is intruded."),
        ("'b11', ", "Height boundary is intruded."),
        ("'b33', 2", "BlockType does not exist."),
        (";".join(["'b11', 5"] * 17), "Height boundary is intruded."),
        (";".join(["'b13', 5"] * 6), "Height boundary is intruded."),
        ("'b11' , 3", "BlockType does not exist."),
        ("'b|1', 2", "BlockType does not exist."),
    ],
)
def test_conversion_errors(calls: str, error: str) -> None:
    assert convert(calls) == error


def test_spec_vectors() -> None:
    assert blocks(convert("'b11', 19")) == [("SquareTiny", "2.12005", "-3.37995", "0")]
    tower = convert(";".join(["'b11', 5"] * 16))
    assert blocks(tower)[-1][2] == "0.22155"
    assert 'minWidth="23.49312" maxWidth="28.49312"' in tower
    assert blocks(convert("'b11', 4;'b11', 4;'b31', 5;'b11', 7")) == [
        ("SquareTiny", "2.12005", "-3.37995", "0"),
        ("SquareTiny", "2.12005", "-3.13985", "0"),
        ("RectSmall", "2.36015", "-2.89975", "0"),
        ("SquareTiny", "2.84035", "-3.37995", "0"),
    ]
    xs = [b[1] for b in blocks(convert("'b31', 2;'b31', 17;'b13', 2;'b13', 17;'b31', 10;'b11', 10"))]
    assert xs == ["2.36015", "5.96165", "2.36015", "5.96165", "4.28095", "4.28095"]
    assert convert("|b11|, 2") == convert("'b11', 2")


def test_top_row_quirk_places_an_overlapping_block() -> None:
    # fill column 4 to the top row, then drop a b31 centred on 5: row 15 is rejected only by its side cell
    level = drop_blocks([("B11", 4)] * 16 + [("B31", 5)])
    assert isinstance(level, GridLevel)
    assert (level.blocks[-1].column, level.blocks[-1].row) == (1, 15)


def test_upper_case_text_converts_because_it_is_lower_cased_first() -> None:
    text = "DROP_BLOCK('B31', 5)\n"
    assert isinstance(drop_blocks(parse_drop_calls(text, "drop_block")), GridLevel)


def test_the_unity_2023_levels_are_rebuilt_byte_for_byte(pcg_data: Path) -> None:
    rebuilt, failed = 0, {}
    for path in sorted((pcg_data / "unity-2023").glob("v*/levels/*/*.xml")):
        original = path.read_bytes()
        drops = drops_from_level(parse_level(original))
        level = drop_blocks([(code.upper(), slot) for code, slot in drops])
        if isinstance(level, StageFailure):
            failed[path.stem] = level.reason
            continue
        assert level_xml_text(level).encode("utf-8") == original, path.name
        rebuilt += 1
    assert rebuilt == 138
    assert len(failed) == 12 and set(failed.values()) == {"Width boundary is intruded."}
    # the old converter parked the intruding b31 in the top row (y = 0.22155)
    for stem in failed:
        team, letter = stem.split("_")[0].lower(), stem.split("_")[1]
        level_file = pcg_data / "unity-2023" / team / "levels" / letter / f"{stem}.xml"
        assert any(o.y == Decimal("0.22155") for o in parse_level(level_file.read_bytes()).objects)


def test_parse_level_reads_real_utf16_and_rejects_garbage() -> None:
    xml = convert("'b31', 8")
    assert parse_level(xml.encode("utf-16")) == parse_level(xml.encode("utf-8"))
    with pytest.raises(LevelParseError, match="malformed XML"):
        parse_level(b"<Level><GameObjects>")
    with pytest.raises(LevelParseError, match="not a number"):
        parse_level(b'<Level><GameObjects><Block type="SquareTiny" x="a" y="1"/></GameObjects></Level>')


def test_build_stage_writes_levels_and_logs_failures(tmp_path: Path) -> None:
    root = tmp_path / "competition"
    inter = root / "team" / "intermediate" / "A"
    inter.mkdir(parents=True)
    (inter / "team_A_1.txt").write_text("drop_block('b31', 8)\n")
    (inter / "team_A_2.txt").write_text("drop_block('b31', 0)\n")
    summary = run_build(open_competition(root, edition(2024)))
    assert {e.trial: e.verdict for e in summary.events} == {"team_A_1.txt": "ok", "team_A_2.txt": "width_boundary"}
    assert (root / "team" / "levels" / "A" / "team_A_1.xml").read_text().startswith("<?xml")
    assert not (root / "team" / "levels" / "A" / "team_A_2.xml").exists()
    log = summary.log_files[0].read_text()
    assert "team: team - character: A - trial: team_A_2.txt - Failed - Width boundary is intruded." in log
