"""evaluate end to end: a killed run resumed equals an uninterrupted one; Dask gives the executor's results."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from podium.core.execution.executor import SerialExecutor
from podium.tracks.pcg.competition import open_competition
from podium.tracks.pcg.editions import edition
from podium.tracks.pcg.stages.driver import StageSettings
from podium.tracks.pcg.stages.simulate import run_simulate
from tests.needs import need_module
from tests.tracks.pcg.large_report import gallery_tiles

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "pcg-2023-unity"


def outputs(root: Path) -> dict[str, bytes]:
    files = [*root.glob("result/*.csv"), *root.glob("result/constants.json"), *root.glob("*/*/*.json")]
    files += [root / "result" / "report.html"] if (root / "result" / "report.html").exists() else []
    files += [*root.glob("*/*/*/*.xml"), *root.glob("*/images/*/*.png"), *root.glob("*/intermediate/*/*.txt")]
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(files)}


def competition(parent: Path) -> Path:
    root = parent / "competition"
    shutil.copytree(EXAMPLE, root)
    for stage in ("stability", "similarity"):  # evaluate must make them itself
        for folder in root.glob(f"*/{stage}"):
            shutil.rmtree(folder)
    return root


def evaluate_command(root: Path, model: Path) -> list[str]:
    return [sys.executable, "-m", "podium", "pcg", "evaluate", str(root), "--edition", "2023",
            "--classifier", f"hf:{model}", "--workers", "1"]  # fmt: skip


@pytest.fixture(scope="module")
def reference(tiny_vit: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example competition evaluated in one uninterrupted run."""
    root = competition(tmp_path_factory.mktemp("reference"))
    subprocess.run(evaluate_command(root, tiny_vit), check=True, capture_output=True, timeout=600)
    return root


def test_a_killed_evaluation_resumes_to_the_same_results(reference: Path, tiny_vit: Path, tmp_path: Path) -> None:
    interrupted = competition(tmp_path / "interrupted")
    process = subprocess.Popen(
        evaluate_command(interrupted, tiny_vit), stdout=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 300
    while not list(interrupted.glob("*/stability/*.json")) and time.monotonic() < deadline:
        time.sleep(0.05)  # kill it in the middle of simulate, once some characters are done
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert not (interrupted / "result" / "trial_scores.csv").exists()
    resumed = subprocess.run(evaluate_command(interrupted, tiny_vit), check=True, capture_output=True, text=True)
    assert "skipped" in resumed.stdout
    assert outputs(interrupted) == outputs(reference)
    assert len(outputs(reference)) > 400


def test_a_rerun_writes_the_same_report(reference: Path, tiny_vit: Path, tmp_path: Path) -> None:
    again = tmp_path / "competition"
    shutil.copytree(reference, again)
    rerun = subprocess.run(evaluate_command(again, tiny_vit), check=True, capture_output=True, text=True)
    assert "skipped" in rerun.stdout
    page = (again / "result" / "report.html").read_bytes()
    assert page == (reference / "result" / "report.html").read_bytes()
    tiles = [tile for team in gallery_tiles(page.decode()).values() for tile in team]
    assert sum(tile[5] == "width_boundary" for tile in tiles) == 12  # from the ledgers, not from this run


def test_dask_local_cluster_gives_the_same_results(tmp_path: Path) -> None:
    """simulate and classify spread over a real Dask cluster write what the serial executor writes."""
    distributed = need_module("distributed", "dask")
    from podium.core.execution.dask import DaskExecutor

    serial, clustered = tmp_path / "serial" / "competition", tmp_path / "dask" / "competition"
    for root in (serial, clustered):
        shutil.copytree(EXAMPLE / "v2" / "raw", root / "v2" / "raw")
    from podium.tracks.pcg.classifiers import ClassifierSpec
    from podium.tracks.pcg.stages.build import run_build
    from podium.tracks.pcg.stages.classify import run_classify
    from podium.tracks.pcg.stages.extract import run_extract

    for root in (serial, clustered):
        run_extract(open_competition(root, edition(2023)))
        run_build(open_competition(root, edition(2023)))
    run_simulate(open_competition(serial, edition(2024)), StageSettings(executor=SerialExecutor()))
    run_classify(
        open_competition(serial, edition(2023)),
        StageSettings(classifier=ClassifierSpec("embedded"), executor=SerialExecutor()),
    )
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        summary = run_simulate(
            open_competition(clustered, edition(2024)), StageSettings(executor=DaskExecutor(client=client, in_flight=4))
        )
        classified = run_classify(
            open_competition(clustered, edition(2023)),
            StageSettings(classifier=ClassifierSpec("embedded"), executor=DaskExecutor(client=client, in_flight=4)),
        )
    assert {e.verdict for e in summary.events} == {"ok"} == {e.verdict for e in classified.events}
    assert len(summary.events) == len(list(clustered.glob("*/levels/*/*.xml"))) == 29 == len(classified.events)
    assert len(list(clustered.glob("*/similarity/*.json"))) == 3  # letters I, L, U
    assert outputs(serial) == outputs(clustered)


def test_report_shows_leaderboard_intervals_heat_map_and_trials(reference: Path, tiny_vit: Path) -> None:
    page = (reference / "result" / "report.html").read_text()
    for heading in ("Leaderboard", "At a glance", "Character scores", "Stability, similarity, diversity",
                    "Letter weights", "Trials"):  # fmt: skip
        assert f"<h2>{heading}" in page
    tiles = gallery_tiles(page)
    board = re.findall(r"<tr><td>\d+</td><td class='t'>(\w+)</td>", page)
    assert sorted(board) == ["v1", "v2", "v3", "v4", "v5"] and list(tiles) == board  # sections in rank order
    assert {tile[0] for team in tiles.values() for tile in team} == {"I", "L", "U"}
    failed = [tile for team in tiles.values() for tile in team if tile[5] != "ok"]
    assert len(failed) == 12 and {(t[5], t[6], t[7]) for t in failed} == {
        ("width_boundary", "Width boundary is intruded.", "")
    }
    assert sum(bool(tile[7]) for team in tiles.values() for tile in team) == 138  # every built level's thumbnail
    assert f"classifier <code>hf:{tiny_vit}</code>" in page and "images/" not in page
    assert " – " in page  # bootstrap intervals


def test_a_team_generate_failed_and_the_board_lacks_is_named_with_its_first_failure() -> None:
    from podium.tracks.pcg.pipeline import _unscored

    failures = {("zergy", "A", "1"): ("program_rejected", "no file of the submission is a program\nmore"),
                ("zergy", "A", "2"): ("program_rejected", "no file of the submission is a program"),
                ("cot", "B", "1"): ("model_error", "HTTP 502")}  # fmt: skip
    assert _unscored(failures, {"cot"}) == ("zergy (program_rejected: no file of the submission is a program)",)
    assert _unscored(failures, {"cot", "zergy"}) == ()  # on the board: its trials say why in the gallery
