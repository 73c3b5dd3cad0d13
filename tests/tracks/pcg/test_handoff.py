"""simulate hands its rendered images to classify in memory: the same similarity files, without decoding them."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from podium.tracks.pcg.classifiers import ClassifierSpec
from podium.tracks.pcg.classifiers.embedded import EmbeddedClassifier, preprocess
from podium.tracks.pcg.competition import open_competition
from podium.tracks.pcg.editions import edition
from podium.tracks.pcg.handoff import GrayImage, ImageHandoff, ModelInput, png_digest
from podium.tracks.pcg.pipeline import evaluate
from podium.tracks.pcg.rules.physics import PhysicsParameters
from podium.tracks.pcg.rules.simulate import SimulationJob, simulate_level
from podium.tracks.pcg.stages.build import run_build
from podium.tracks.pcg.stages.classify import run_classify
from podium.tracks.pcg.stages.driver import StageSettings
from podium.tracks.pcg.stages.extract import run_extract
from podium.tracks.pcg.stages.simulate import run_simulate

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "pcg-2023-unity"
EMBEDDED = ClassifierSpec("embedded")


def blank_input(gray: GrayImage) -> ModelInput:
    """A maker whose inputs differ from every real image's, to see where classify's inputs came from."""
    return np.zeros((64, 64), np.float32)


def built(parent: Path) -> Path:
    """The example's team v2 (29 levels of I, L, U) extracted and built, ready to simulate."""
    root = parent / "competition"
    shutil.copytree(EXAMPLE / "v2" / "raw", root / "v2" / "raw")
    run_extract(open_competition(root, edition(2023)))
    run_build(open_competition(root, edition(2023)))
    return root


def similarities(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.glob("*/similarity/*.json"))}


def probabilities(root: Path, letter: str) -> dict[str, list[float]]:
    document = json.loads((root / "v2" / "similarity" / f"{letter}.json").read_text())
    return {entry["id"]: [raw["softmax_prob"] for raw in entry["raws"]] for entry in document["similarities"]}


def test_only_the_embedded_classifier_takes_inputs_made_from_gray_images() -> None:
    assert EMBEDDED.input_maker() is preprocess
    assert ClassifierSpec("hf:pittawat/vit-base-letter").input_maker() is None
    assert ClassifierSpec("onnx:letters.onnx").input_maker() is None


def test_simulate_hands_over_the_input_of_the_file_it_wrote(tmp_path: Path) -> None:
    root = built(tmp_path)
    xml = sorted(root.glob("v2/levels/L/*.xml"))[0]
    image_path = tmp_path / "out.png"
    simulated = simulate_level(SimulationJob("tag", xml.read_bytes(), (image_path,), PhysicsParameters(), preprocess))
    assert simulated.rendered is not None
    written = image_path.read_bytes()
    assert simulated.rendered.png_sha256 == png_digest(written)
    decoded = EmbeddedClassifier.image_input(Image.open(io.BytesIO(written)))
    assert simulated.rendered.array.dtype == decoded.dtype and np.array_equal(simulated.rendered.array, decoded)
    assert simulated.rendered.array.sum() > 10  # a letter, not a blank page
    assert simulate_level(SimulationJob("tag", xml.read_bytes(), (image_path,), PhysicsParameters())).rendered is None


def test_evaluate_with_the_handoff_writes_what_the_separate_stages_write(tmp_path: Path) -> None:
    plain, handed = built(tmp_path / "plain"), built(tmp_path / "handed")
    run_simulate(open_competition(plain, edition(2024)))
    run_classify(
        open_competition(plain, edition(2023)), StageSettings(classifier=EMBEDDED)
    )  # no handoff: every PNG decoded
    evaluation = evaluate(open_competition(handed, edition(2023)), EMBEDDED)
    assert [(s.stage, s.summary.count("ok")) for s in evaluation.stages][-2:] == [("simulate", 29), ("classify", 29)]
    assert similarities(handed) == similarities(plain) and len(similarities(plain)) == 3


def test_evaluate_classifies_the_handed_inputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ClassifierSpec, "input_maker", lambda self: blank_input)
    root = built(tmp_path)
    evaluate(open_competition(root, edition(2023)), EMBEDDED)
    rows = list(probabilities(root, "L").values())
    assert len(rows) == len(list(root.glob("v2/images/L/*.png"))) > 5 and all(
        row == rows[0] for row in rows
    )  # every image read as the blank input


def test_classify_decodes_files_whose_bytes_changed_after_simulate(tmp_path: Path) -> None:
    root = built(tmp_path)
    handoff = ImageHandoff(blank_input)
    run_simulate(open_competition(root, edition(2024)), StageSettings(handoff=handoff))
    assert len(handoff) > 20  # identical images share an entry
    images = sorted((root / "v2" / "images" / "L").glob("*.png"))
    Image.open(images[0]).save(images[0])  # the same pixels in PIL's encoding: other bytes, not in the handoff
    run_classify(open_competition(root, edition(2023)), StageSettings(classifier=EMBEDDED, handoff=handoff))
    rows = probabilities(root, "L")
    blank = rows[images[1].name]
    assert all(rows[image.name] == blank for image in images[1:])
    assert rows[images[0].name] != blank  # not found in the handoff: decoded from the file
    # the decoded one reads as the stage without a handoff reads it (in the same batch: batches change the floats)
    alone = tmp_path / "alone" / "v2"
    shutil.copytree(root / "v2" / "images", alone / "images")
    run_classify(open_competition(alone.parent, edition(2023)), StageSettings(classifier=EMBEDDED))
    assert probabilities(alone.parent, "L")[images[0].name] == rows[images[0].name]


def test_images_simulate_classified_need_no_classify_job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain, handed = built(tmp_path / "plain"), built(tmp_path / "handed")
    run_simulate(open_competition(plain, edition(2024)))
    run_classify(open_competition(plain, edition(2023)), StageSettings(classifier=EMBEDDED))

    def no_job(job: object) -> object:
        raise AssertionError("classify sent a job for an image simulate's workers classified")

    monkeypatch.setattr("podium.tracks.pcg.stages.classify.classify_images", no_job)
    evaluate(open_competition(handed, edition(2023)), EMBEDDED)
    assert similarities(handed) == similarities(plain)


def test_a_predicted_image_hands_over_its_prediction_alone(tmp_path: Path) -> None:
    """The worker that classified an image keeps its input: classify needs only the prediction."""
    root = built(tmp_path)
    handoff = ImageHandoff(preprocess, classifier=EMBEDDED)
    run_simulate(open_competition(root, edition(2024)), StageSettings(handoff=handoff))
    png = sorted((root / "v2" / "images" / "L").glob("*.png"))[0].read_bytes()
    digest = png_digest(png)
    assert handoff.prediction(digest) is not None
    assert handoff.input_or_bytes(png, digest) == png  # no input kept: had classify needed one, it decodes the file
    assert len(handoff) > 20
