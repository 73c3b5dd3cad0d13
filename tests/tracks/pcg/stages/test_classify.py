"""The classify driver: an image already classified in the run is not classified again, and writes the same."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from podium.core.execution.executor import SerialExecutor
from podium.tracks.pcg.classifiers import ClassifierSpec
from podium.tracks.pcg.competition import open_competition
from podium.tracks.pcg.editions import edition
from podium.tracks.pcg.stages.classify import run_classify
from podium.tracks.pcg.stages.driver import StageSettings


class ImageCounter(SerialExecutor):
    """Runs classify jobs in process and counts the images they carry."""

    def __init__(self) -> None:
        self.images = 0

    def map_unordered(self, function: Callable[[Any], Any], jobs: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
        for job, result in super().map_unordered(function, jobs):
            self.images += len(job.images)
            yield job, result


def _images(pcg_data: Path, root: Path, teams: tuple[str, ...]) -> None:
    for team in teams:
        shutil.copytree(pcg_data / "unity-2023" / "v2" / "images", root / team / "images")


def test_repeated_images_are_classified_once_with_the_same_files(pcg_data: Path, tmp_path: Path) -> None:
    alone, both = tmp_path / "alone" / "root", tmp_path / "both" / "root"
    _images(pcg_data, alone, ("v2",))
    _images(pcg_data, both, ("v2", "v2_copy"))  # a second team with the very same images
    (both / "v2_copy" / "images" / "I" / "V2_I_1.png").write_bytes(b"not a png")  # one that differs
    images = sorted((alone / "v2" / "images").glob("*/*.png"))
    distinct = len({p.read_bytes() for p in images})
    counter = ImageCounter()
    settings = StageSettings(classifier=ClassifierSpec("embedded"))
    run_classify(open_competition(alone, edition(2025)), settings)
    summary = run_classify(open_competition(both, edition(2025)), StageSettings(
        classifier=ClassifierSpec("embedded"), executor=counter
    ))  # fmt: skip
    assert counter.images == distinct + 1 < 2 * len(images)  # each distinct image once, and the broken one
    assert len(summary.events) == 2 * len(images)
    for letter in ("I", "L", "U"):
        written = (alone / "v2" / "similarity" / f"{letter}.json").read_bytes()
        assert (both / "v2" / "similarity" / f"{letter}.json").read_bytes() == written
    copy_l = (both / "v2_copy" / "similarity" / "L.json").read_text("utf-8")
    assert copy_l == (alone / "v2" / "similarity" / "L.json").read_text("utf-8")  # ids are file names, alike
    failed = [e for e in summary.events if e.team == "v2_copy" and e.failed]
    assert [(e.trial, e.verdict) for e in failed] == [("V2_I_1.png", "malformed_input")]


def test_a_batch_dependent_classifier_classifies_every_image() -> None:
    assert ClassifierSpec("embedded", batch_size=16).per_image  # it runs each image alone anyway
    assert ClassifierSpec("hf:some/model").per_image and not ClassifierSpec("hf:some/model", batch_size=8).per_image


def test_without_reuse_every_image_of_a_folder_is_sent_even_a_repeat() -> None:
    from podium.tracks.pcg.stages.classify import KnownImages

    images = [("a.png", b"1"), ("b.png", b"1"), ("c.png", b"2")]
    assert KnownImages(reuse=False).plan("t", "A", images) == [0, 1, 2]
    assert KnownImages(reuse=True).plan("t", "A", images) == [0, 2]
