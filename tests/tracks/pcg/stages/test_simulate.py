"""The evaluator against Unity's outputs, determinism, resumability, and levels that must not crash a run."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from podium.core.execution.executor import ProcessPoolExecutor, SerialExecutor
from podium.tracks.pcg.calibrate import compare_with_unity, summarize
from podium.tracks.pcg.competition import open_competition
from podium.tracks.pcg.editions import edition
from podium.tracks.pcg.official.levelxml import level_xml_text
from podium.tracks.pcg.official.png import encode_gray_as_rgba_png
from podium.tracks.pcg.rules.build import GridLevel, drop_blocks
from podium.tracks.pcg.stages.driver import StageSettings
from podium.tracks.pcg.stages.simulate import run_simulate
from podium.tracks.pcg.thumbnails import ThumbnailCache, source_digest, thumbnail_png


@pytest.fixture(scope="module")
def calibration(pcg_data: Path):  # type: ignore[no-untyped-def]
    rows = list(compare_with_unity(pcg_data / "unity-2023"))
    return rows, summarize(rows)


def test_stability_agrees_with_unity(calibration) -> None:  # type: ignore[no-untyped-def]
    rows, summary = calibration
    assert summary.levels == 150
    assert summary.stable_agreement == 150
    assert summary.unity_unstable == 33 and summary.unity_unstable_found == 33
    assert summary.false_unstable == 0
    assert summary.mean_abs_error == 0.0
    assert summary.exact_scores == 150, [(r.level, r.unity_score, r.our_score) for r in rows if not r.exact]


def test_images_agree_with_unity(calibration) -> None:  # type: ignore[no-untyped-def]
    _, summary = calibration
    assert summary.image_format_equal == 150  # 1024×1024 RGBA, pure black and white, like Unity's
    assert summary.both_stable_iou_median == 1.0
    assert summary.both_stable_iou_min >= 0.99
    assert summary.collapsed_iou_median >= 0.975


def copy_levels(pcg_data: Path, root: Path, teams: tuple[str, ...]) -> None:
    for team in teams:
        shutil.copytree(pcg_data / "unity-2023" / team / "levels", root / team / "levels")


def snapshot(root: Path) -> dict[str, bytes]:
    files = [*root.glob("*/stability/*.json"), *root.glob("*/images/*/*.png")]
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(files)}


def test_same_results_on_every_executor_and_rerun_skips(pcg_data: Path, tmp_path: Path) -> None:
    serial, pooled = tmp_path / "serial" / "competition", tmp_path / "pooled" / "competition"
    copy_levels(pcg_data, serial, ("v3", "v4"))
    copy_levels(pcg_data, pooled, ("v3", "v4"))
    first = run_simulate(open_competition(serial, edition(2024)), StageSettings(executor=SerialExecutor()))
    run_simulate(
        open_competition(pooled, edition(2024)),
        StageSettings(executor=ProcessPoolExecutor(workers=2, jobs_per_worker=7)),
    )
    assert {e.verdict for e in first.events} == {"ok"} and len(first.events) == 60
    assert snapshot(serial) == snapshot(pooled) and len(snapshot(serial)) == 66
    again = run_simulate(open_competition(serial, edition(2024)), StageSettings(executor=SerialExecutor()))
    assert {e.verdict for e in again.events} == {"skipped"}
    # one changed level redoes only its character folder
    level = serial / "v3" / "levels" / "I" / "V3_I_1.xml"
    level.write_bytes(level.read_bytes().replace(b'rotation="90"', b'rotation="0"', 1))
    redone = run_simulate(open_competition(serial, edition(2024)), StageSettings(executor=SerialExecutor()))
    assert {(e.character, e.verdict) for e in redone.events if e.verdict != "skipped"} == {("I", "ok")}
    assert sum(e.verdict == "ok" for e in redone.events) == 10


def test_stability_file_has_unitys_format(pcg_data: Path, tmp_path: Path) -> None:
    root = tmp_path / "competition"
    copy_levels(pcg_data, root, ("v1",))
    run_simulate(open_competition(root, edition(2024)))
    text = (root / "v1" / "stability" / "L.json").read_text()
    document = json.loads(text)
    assert list(document) == ["dataCount", "rate", "raws"] and document["dataCount"] == 10
    assert text.startswith('{\n    "dataCount": 10,\n    "rate": ')
    first = document["raws"][0]
    assert first["tag"] == "competition\\v1\\levels\\L\\V1_L_1.xml"
    assert list(first) == ["tag", "score", "startingObjects", "movingObjects"]
    assert [r["tag"].rsplit("_", 1)[1] for r in document["raws"]][:3] == ["1.xml", "10.xml", "2.xml"]
    unity = json.loads((pcg_data / "unity-2023" / "v1" / "stability" / "L.json").read_text())
    assert [r["score"] for r in document["raws"]] == [r["score"] for r in unity["raws"]]
    for ours, theirs in zip(document["raws"], unity["raws"], strict=True):
        if theirs["score"] == 1.0:  # after several runs Unity keeps the counts of the last one
            assert (ours["startingObjects"], ours["movingObjects"]) == (theirs["startingObjects"], 0)


def write_level(root: Path, name: str, xml: str | bytes) -> None:
    path = root / "team" / "levels" / "A" / f"team_A_{name}.xml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(xml.encode() if isinstance(xml, str) else xml)


def test_bad_levels_get_a_verdict_and_the_run_goes_on(tmp_path: Path) -> None:
    full = drop_blocks([("B11", column) for _ in range(16) for column in range(20)])  # 320 cells, the densest level
    overlapping = drop_blocks([("B11", 4)] * 16 + [("B31", 5)])  # the converter's top-row quirk
    empty = drop_blocks([])
    assert isinstance(full, GridLevel) and isinstance(overlapping, GridLevel) and isinstance(empty, GridLevel)
    write_level(tmp_path, "1", level_xml_text(full))
    write_level(tmp_path, "2", level_xml_text(overlapping))
    write_level(tmp_path, "3", level_xml_text(empty))
    write_level(tmp_path, "4", "<Level><GameObjects><Block type='SquareTiny'")
    write_level(tmp_path, "5", '<Level><GameObjects><Pig type="BasicSmall" x="1" y="1"/></GameObjects></Level>')
    write_level(tmp_path, "6", b"\xff\xfe\x00garbage")
    summary = run_simulate(open_competition(tmp_path, edition(2024)))
    verdicts = {e.trial: e.verdict for e in summary.events}
    assert verdicts == {
        "team_A_1.xml": "ok",
        "team_A_2.xml": "ok",
        "team_A_3.xml": "empty_level",
        "team_A_4.xml": "malformed_input",
        "team_A_5.xml": "malformed_input",
        "team_A_6.xml": "malformed_input",
    }
    reasons = {e.trial: e.reason for e in summary.events}
    assert "malformed XML" in reasons["team_A_4.xml"] and "Pig" in reasons["team_A_5.xml"]
    stability = json.loads((tmp_path / "team" / "stability" / "A.json").read_text())
    assert [r["tag"].rsplit("\\", 1)[1] for r in stability["raws"]] == ["team_A_1.xml", "team_A_2.xml"]
    assert stability["raws"][0]["startingObjects"] == 320
    blank = np.asarray(Image.open(tmp_path / "team" / "images" / "A" / "team_A_3.png"))
    assert blank.shape == (1024, 1024, 4) and blank.min() == 255  # Unity writes a white image for an empty level
    assert not (tmp_path / "team" / "images" / "A" / "team_A_4.png").exists()


@pytest.mark.parametrize("seed", range(6))
def test_png_encoder_round_trips(seed: int) -> None:
    rng = np.random.default_rng(seed)
    size = (int(rng.integers(1, 64)), int(rng.integers(1, 64))) if seed else (1024, 1024)
    kind = seed % 3
    if kind == 0:  # blocks: long runs of repeated rows
        gray = np.full(size, 255, np.uint8)
        for _ in range(5):
            r, c = rng.integers(0, size[0]), rng.integers(0, size[1])
            gray[r : r + int(rng.integers(1, 40)), c : c + int(rng.integers(1, 40))] = 0
    elif kind == 1:  # noise: no repeats
        gray = (rng.random(size) < 0.5).astype(np.uint8) * 255
    else:  # any gray level, with repeated bands
        gray = np.repeat(rng.integers(0, 256, (max(1, size[0] // 4), size[1]), dtype=np.uint8), 4, axis=0)
    decoded = np.asarray(Image.open(io.BytesIO(encode_gray_as_rgba_png(gray))))
    assert decoded.shape == (*gray.shape, 4)
    assert (decoded[..., 0] == gray).all() and (decoded[..., 2] == gray).all() and (decoded[..., 3] == 255).all()


def test_thumbnails_from_the_picture_in_memory_equal_those_from_the_files(pcg_data: Path, tmp_path: Path) -> None:
    """simulate makes the report's thumbnails before it encodes each PNG; they must be what the file would give."""
    root = tmp_path / "competition"
    copy_levels(pcg_data, root, ("v3",))
    cache = ThumbnailCache(tmp_path / "thumbs.jsonl")
    run_simulate(
        open_competition(root, edition(2024)),
        StageSettings(executor=ProcessPoolExecutor(workers=2, jobs_per_worker=7), thumbnails=cache),
    )
    images = sorted(root.glob("v3/images/*/*.png"))
    assert len(images) == 30
    for image in images:
        source = image.read_bytes()
        assert cache.get(source_digest(source)) == thumbnail_png(source), image.name
    reread = ThumbnailCache(tmp_path / "thumbs.jsonl")  # and they were written down for the report to read
    assert all(reread.get(source_digest(image.read_bytes())) is not None for image in images)


class CountingExecutor(SerialExecutor):
    """Runs simulate's jobs in process and counts them (one per level simulated)."""

    def __init__(self) -> None:
        self.levels = 0

    def map_unordered(self, function, jobs):  # type: ignore[no-untyped-def]
        for job, result in super().map_unordered(function, jobs):
            self.levels += 1
            yield job, result


def test_identical_levels_are_simulated_once_and_written_for_each(pcg_data: Path, tmp_path: Path) -> None:
    once, twice = tmp_path / "once" / "root", tmp_path / "twice" / "root"  # the same root name: tags embed it
    copy_levels(pcg_data, once, ("v2",))
    copy_levels(pcg_data, twice, ("v2",))
    shutil.copytree(twice / "v2", twice / "v2_copy")  # another team with the very same level files
    levels = len(list((once / "v2" / "levels").glob("*/*.xml")))
    distinct = len({p.read_bytes() for p in (once / "v2" / "levels").glob("*/*.xml")})
    counted = CountingExecutor()
    run_simulate(open_competition(once, edition(2024)))
    summary = run_simulate(open_competition(twice, edition(2024)), StageSettings(executor=counted))
    assert counted.levels == distinct < levels * 2 and len(summary.events) == levels * 2
    alone, both = snapshot(once), snapshot(twice)
    for name, data in alone.items():
        assert both[name] == data  # the first team's files are the ones it gets alone
        copy = both[name.replace("v2/", "v2_copy/", 1)]
        if name.endswith(".png"):
            assert copy == data
        else:  # the same records under the copy's own tags
            assert json.loads(copy) == json.loads(data.replace(b"\\\\v2\\\\", b"\\\\v2_copy\\\\"))
