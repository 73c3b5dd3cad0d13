"""Roots mean the same everywhere: absolute before work leaves the parent, never a team folder, never silent."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from podium.core.errors import InputError, PodiumError
from podium.core.execution.executor import SerialExecutor
from podium.tracks.pcg import competition as competition_module
from podium.tracks.pcg import folders
from podium.tracks.pcg.classifiers import ClassifierSpec
from podium.tracks.pcg.competition import open_competition
from podium.tracks.pcg.editions import edition
from podium.tracks.pcg.folders import ModelRoot
from podium.tracks.pcg.pipeline import evaluate
from podium.tracks.pcg.stages.classify import run_classify
from podium.tracks.pcg.stages.driver import StageSettings
from podium.tracks.pcg.stages.extract import run_extract
from podium.tracks.pcg.stages.simulate import run_simulate
from tests.needs import need_module

EXAMPLE = Path(__file__).resolve().parents[4] / "examples" / "pcg-2023-unity"
J = TypeVar("J")
R = TypeVar("R")


def one_team(parent: Path, team: str = "v2") -> Path:
    root = parent / "competition"
    shutil.copytree(EXAMPLE / team / "raw", root / team / "raw")
    return root


def results(root: Path) -> dict[str, bytes]:
    files = [*root.glob("result/*.csv"), *root.glob("*/*/*.json"), *root.glob("*/images/*/*.png")]
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(files)}


def podium(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "podium", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, check=False, timeout=300)


def test_a_team_folder_given_as_the_root_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    root = one_team(tmp_path)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    result = podium("pcg", "evaluate", "competition/v2", "--edition", "2023", "--workers", "1", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "looks like a team folder, not a competition root: it holds raw/" in result.stderr
    assert f"fix: pass the folder that holds the team folders (here probably {root})" in result.stderr
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before  # no result/, no logs/


def test_a_team_folder_is_refused_before_any_stage(tmp_path: Path) -> None:
    root = one_team(tmp_path)
    run_extract(open_competition(root, edition(2023)))
    with pytest.raises(InputError, match=r"it holds raw/, intermediate/"):
        open_competition(root / "v2", edition(2023))  # every stage, score and evaluate start from this value
    assert not (root / "v2" / "logs").exists()


def test_roots_are_absolute_before_jobs_leave(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = one_team(tmp_path)
    monkeypatch.chdir(tmp_path)
    (model_root,) = folders.competition_roots(Path("competition"))
    assert model_root.path == root.resolve() and model_root.path.is_absolute()


class ElsewhereExecutor:
    """Runs each job in another working folder, as a remote worker does."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def map_unordered(self, function: Callable[[J], R], jobs: Iterable[J]) -> Iterator[tuple[J, R]]:
        for job in jobs:
            here = Path.cwd()
            os.chdir(self.folder)
            try:
                result = function(job)
            finally:
                os.chdir(here)
            yield job, result


def test_outputs_written_elsewhere_stop_evaluate_instead_of_scoring_zeros(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Undo the absolute-path rule, as the code before it: the workers then write relative to their own folder.
    root = one_team(tmp_path)
    elsewhere = tmp_path / "worker-folder"
    elsewhere.mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(competition_module, "competition_roots", lambda root, platform=None: [ModelRoot(None, root)])
    with pytest.raises(PodiumError, match=r"simulate reported 29 outputs, but classify finds no input"):
        evaluate(
            open_competition(Path("competition"), edition(2023)),
            ClassifierSpec("embedded"),
            executor=ElsewhereExecutor(elsewhere),
        )
    assert list(elsewhere.glob("competition/v2/images/*/*.png"))  # where the old code's images went
    assert not (root / "result").exists()


@pytest.mark.slow
def test_dask_workers_in_another_folder_with_a_relative_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    distributed = need_module("distributed", "dask")
    from podium.core.execution.dask import DaskExecutor

    local, clustered = one_team(tmp_path / "local"), one_team(tmp_path / "dask")
    for root in (local, clustered):
        run_extract(open_competition(root, edition(2023)))
        from podium.tracks.pcg.stages.build import run_build

        run_build(open_competition(root, edition(2023)))
    run_simulate(open_competition(local, edition(2024)), StageSettings(executor=SerialExecutor()))
    run_classify(
        open_competition(local, edition(2023)),
        StageSettings(classifier=ClassifierSpec("embedded"), executor=SerialExecutor()),
    )

    workers_home = tmp_path / "workers"
    workers_home.mkdir()
    monkeypatch.chdir(workers_home)  # the cluster's worker processes start here
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        monkeypatch.chdir(tmp_path / "dask")  # the parent runs from another folder, with a relative root
        executor = DaskExecutor(client=client, in_flight=4)
        simulated = run_simulate(open_competition(Path("competition"), edition(2024)), StageSettings(executor=executor))
        classified = run_classify(
            open_competition(Path("competition"), edition(2023)),
            StageSettings(classifier=ClassifierSpec("embedded"), executor=executor),
        )
    assert simulated.count("ok") == 29 and classified.count("ok") == 29
    assert not list(workers_home.rglob("*.png"))
    assert results(clustered) == results(local)
