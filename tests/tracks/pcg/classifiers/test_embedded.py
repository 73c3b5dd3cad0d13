"""The embedded letter classifier: shipped weights, NumPy forward pass against torch, block letters, training."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from podium.core.errors import DependencyError, InputError
from podium.tracks.pcg.classifiers import LETTERS, load_classifier
from podium.tracks.pcg.classifiers.embedded import WEIGHTS_PATH, EmbeddedClassifier, preprocess
from tests.needs import need_fonts, need_module
from tools.pcg_classifier.block_letters import block_letter_levels, drop_sequence
from tools.pcg_classifier.letter_sets import load_letter_set
from tools.pcg_classifier.train_classifier import BLOCK_LETTER_SETS as TRAINING_SETS
from tools.pcg_classifier.train_classifier import HELD_OUT_FAMILIES, REPORT_PATH, block_letter_inputs

# The targets, and what the shipped weights measure (the floors below guard against regressions).
BLOCK_LETTER_TARGET = 0.90  # top-1 on clean block-letter levels (each set of BLOCK_LETTER_SETS)
HELD_OUT_TARGET = 0.95  # top-1 on unseen font families in block style (read as the letters as drawn)
SHIPPED_HELD_OUT = 0.884  # all 11,856 images (half with defects); measured 0.8841
SHIPPED_HELD_OUT_CLEAN = 0.915  # the 5,869 without defects; measured 0.9157
SHIPPED_HELD_OUT_AS_DRAWN = 0.950  # the 4,522 without defects or drop-rule rewrite; measured 0.9507
SHIPPED_REPORT = json.loads(REPORT_PATH.read_text("utf-8"))  # the figures of the shipped weights


@pytest.fixture(scope="module")
def shipped() -> EmbeddedClassifier:
    return EmbeddedClassifier.load()


def rgba(gray: np.ndarray) -> Image.Image:
    return Image.fromarray(np.dstack([gray, gray, gray, np.full_like(gray, 255)]), "RGBA")


def test_shipped_model_loads_by_spec(shipped: EmbeddedClassifier) -> None:
    assert WEIGHTS_PATH.is_file()
    assert shipped.name.startswith("embedded:") and len(shipped.name) == len("embedded:") + 12
    assert load_classifier("embedded").name == shipped.name


def test_missing_weights_name_the_training_command(tmp_path: Path) -> None:
    with pytest.raises(DependencyError) as error:
        EmbeddedClassifier.load(tmp_path / "nothing.npz")
    assert error.value.fix is not None and "tools.pcg_classifier.train_classifier" in error.value.fix


def test_predictions_are_26_probabilities(shipped: EmbeddedClassifier) -> None:
    rng = np.random.default_rng(0)
    images = []
    for _ in range(3):
        gray = np.full((1024, 1024), 255, np.uint8)
        r, c = rng.integers(100, 600, size=2)
        gray[r : r + 300, c : c + 80] = 0
        images.append(rgba(gray))
    images.append(rgba(np.full((1024, 1024), 255, np.uint8)))  # a level with no block left
    predictions = shipped.predict(images)
    assert len(predictions) == 4 and shipped.predict([]) == []
    for prediction in predictions:
        assert len(prediction.probabilities) == len(LETTERS)
        assert all(isinstance(p, float) and 0.0 <= p <= 1.0 for p in prediction.probabilities)
        assert sum(prediction.probabilities) == pytest.approx(1.0, abs=1e-5)
        assert prediction.embedding is not None and all(isinstance(v, float) for v in prediction.embedding)
    # one at a time or in a batch: the same numbers
    assert shipped.predict(images[:1])[0].probabilities == pytest.approx(predictions[0].probabilities, abs=1e-6)


def test_preprocess_averages_blocks_of_the_1024_image() -> None:
    gray = np.full((1024, 1024), 255, np.uint8)
    gray[:16, :8] = 0  # half of the top-left 16×16 block is ink
    gray[512:, :] = 0
    x = preprocess(gray)
    assert x.shape == (64, 64) and x.dtype == np.float32
    assert x[0, 0] == pytest.approx(0.5) and x[0, 1] == 0.0 and (x[32:] == 1.0).all()
    # other sizes are resized to 1024 first
    assert preprocess(np.full((500, 300), 255, np.uint8)).shape == (64, 64)


def test_numpy_forward_pass_equals_torch(tmp_path: Path) -> None:
    torch = need_module("torch", "hf")
    from tools.pcg_classifier.train_classifier import Architecture, export_weights, torch_model

    torch.manual_seed(3)
    arch = Architecture()
    model = torch_model(arch)
    with torch.no_grad():  # batch norm statistics that are not the identity, so folding them is tested
        for module in model.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.uniform_(-0.2, 0.2)
                module.running_var.uniform_(0.5, 2.0)
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.2, 0.2)
    model.eval()
    path = tmp_path / "random.npz"
    export_weights(model, arch, path)
    classifier = EmbeddedClassifier.load(path)
    inputs = np.random.default_rng(4).random((5, 64, 64), dtype=np.float32)
    (network,) = classifier.networks
    output = network.forward(inputs)
    logits, features = output.logits, output.features
    with torch.no_grad():
        expected = model(torch.from_numpy(inputs)).numpy()
    np.testing.assert_allclose(logits, expected, atol=1e-4, rtol=0)
    assert features.shape == (5, arch.hidden)


def test_an_ensemble_averages_its_members_probabilities_and_joins_their_embeddings(tmp_path: Path) -> None:
    torch = need_module("torch", "hf")
    from tools.pcg_classifier.train_classifier import Architecture, combine_weights, export_weights, torch_model

    arch = Architecture()
    members = []
    for seed in (5, 6):
        torch.manual_seed(seed)
        members.append(tmp_path / f"member{seed}.npz")
        export_weights(torch_model(arch).eval(), arch, members[-1])
    combine_weights(members, tmp_path / "ensemble.npz")
    ensemble = EmbeddedClassifier.load(tmp_path / "ensemble.npz")
    alone = [EmbeddedClassifier.load(path) for path in members]
    assert len(ensemble.networks) == 2 and ensemble.name not in {c.name for c in alone}
    inputs = np.random.default_rng(7).random((3, 64, 64), dtype=np.float32)
    together = ensemble.predict_arrays(inputs)
    separate = [classifier.predict_arrays(inputs) for classifier in alone]
    for i, prediction in enumerate(together):
        mean = (np.asarray(separate[0][i].probabilities) + np.asarray(separate[1][i].probabilities)) / 2
        np.testing.assert_allclose(prediction.probabilities, mean, atol=1e-6, rtol=0)
        assert prediction.embedding == separate[0][i].embedding + separate[1][i].embedding
    with pytest.raises(ValueError, match="already an ensemble"):
        combine_weights([tmp_path / "ensemble.npz"], tmp_path / "nested.npz")
    damaged = dict(np.load(tmp_path / "ensemble.npz"))
    del damaged["m1.out.bias"]
    np.savez(tmp_path / "damaged.npz", **damaged)
    with pytest.raises(InputError, match="not a letter CNN weights file"):
        EmbeddedClassifier.load(tmp_path / "damaged.npz")


def test_block_letter_designs_build_as_drawn() -> None:
    designs = load_letter_set("first").designs
    assert set(designs) == set(LETTERS) and all(len(pictures) >= 2 for pictures in designs.values())
    levels = block_letter_levels()
    assert len(levels) >= 52
    for _, calls in levels:
        assert all(kind in ("b11", "b31", "b13") and 0 <= slot < 20 for kind, slot in calls)
    with pytest.raises(ValueError, match="drop rule"):
        drop_sequence("#.#\n...\n===")  # the top row would fall onto the bar


@dataclass(frozen=True)
class Measured:
    """Top-1 figures the tests compute themselves from the shipped weights."""

    top1: float
    clean_top1: float
    misses: list[tuple[str, str]]
    as_drawn_top1: float = math.nan  # held-out fonts: clean and not rewritten by the drop rule


@dataclass(frozen=True)
class BlockLetterSet:
    """A set of hand-designed block letters (by its key in the JSON) and what the shipped model reads of it."""

    report_key: str
    levels: int
    shipped_correct: int
    letters: str = "".join(LETTERS)  # the letters it has designs for

    @property
    def designs(self) -> dict[str, tuple[str, ...]]:
        return TRAINING_SETS[self.report_key]


BLOCK_LETTER_SETS = {
    "first": BlockLetterSet("block_letters", 52, 50),
    "second": BlockLetterSet("block_letters_second_set", 60, 60),  # designed apart from the first
    "third": BlockLetterSet("block_letters_third_set", 64, 64),  # apart from both and the generator
    "fourth": BlockLetterSet("block_letters_fourth_set", 58, 57),  # made after the rule that used it
    "fifth": BlockLetterSet("block_letters_fifth_set", 61, 61, "ABCDEFGHIJKLMNOPQRSTUVWXY"),  # no clean Z
    "sixth": BlockLetterSet("block_letters_sixth_set", 47, 47, "ABCDEFGHIJKLMNOPQRTUVWXYZ"),  # every S repeated
    "seventh": BlockLetterSet("block_letters_seventh_set", 52, 52),
    "eighth": BlockLetterSet("block_letters_eighth_set", 57, 56),
    "ninth": BlockLetterSet("block_letters_ninth_set", 64, 63, "ABCDEFGHIJKLMNOPQRSTUWXYZ"),  # no clear V
}
# Sets whose pictures, varied, trained the shipped model: their figures are training figures, not a measure of it.
SEEN_IN_TRAINING = {
    name for name, chosen in BLOCK_LETTER_SETS.items() if SHIPPED_REPORT[chosen.report_key]["seen_in_training"]
}


@pytest.fixture(scope="module")
def measured_sets(shipped: EmbeddedClassifier) -> dict[str, Measured]:
    """Every set of block letters, built, simulated and rendered as the evaluator would (about 2 s each)."""
    measured = {}
    for name, chosen in BLOCK_LETTER_SETS.items():
        inputs, label_array = block_letter_inputs(chosen.designs)
        labels = label_array.tolist()
        predicted = [int(np.argmax(p.probabilities)) for p in shipped.predict_arrays(inputs)]
        misses = [(LETTERS[t], LETTERS[p]) for t, p in zip(labels, predicted, strict=True) if t != p]
        top1 = 1.0 - len(misses) / len(labels)
        measured[name] = Measured(top1, top1, misses)
    return measured


@pytest.fixture(scope="module")
def held_out_fonts(shipped: EmbeddedClassifier) -> Measured:
    """The held-out font families in block style, the training command's own evaluation set (about 25 s)."""
    from tools.pcg_classifier.train_classifier import find_fonts, held_out_data_set, split_fonts

    _, fonts = split_fonts(find_fonts())
    families = {font.family for font in fonts}
    missing = sorted(set(HELD_OUT_FAMILIES) - families)
    need_fonts(missing, "measuring the held-out font families")
    data = held_out_data_set(fonts, 6, 1, workers=2)  # seed 0 + 1 and 6 per letter, as the training command
    predictions = shipped.predict_arrays(data.images.astype(np.float32))
    predicted = np.asarray([int(np.argmax(p.probabilities)) for p in predictions])
    correct = predicted == data.labels
    misses = [(LETTERS[t], LETTERS[p]) for t, p in zip(data.labels, predicted, strict=True) if t != p]
    as_drawn = ~data.defects & ~data.drop_rewritten
    clean_top1 = float(correct[~data.defects].mean())
    return Measured(float(correct.mean()), clean_top1, misses, float(correct[as_drawn].mean()))


def _target_marks(name: str) -> tuple[pytest.MarkDecorator, ...]:
    chosen = BLOCK_LETTER_SETS[name]
    if chosen.shipped_correct >= BLOCK_LETTER_TARGET * chosen.levels:
        return ()
    share = f"{100 * chosen.shipped_correct / chosen.levels:.1f} %"
    reason = f"target missed: the shipped model reads {chosen.shipped_correct} of the {chosen.levels} {name}-set"
    return (pytest.mark.xfail(strict=True, reason=f"{reason} block letters ({share}); see the model card"),)


@pytest.mark.parametrize(
    "name",
    [pytest.param(name, marks=_target_marks(name)) for name in BLOCK_LETTER_SETS if name not in SEEN_IN_TRAINING],
)
def test_unseen_block_letter_sets_reach_the_target(name: str, measured_sets: dict[str, Measured]) -> None:
    assert measured_sets[name].top1 >= BLOCK_LETTER_TARGET, measured_sets[name].misses


@pytest.mark.parametrize("name", list(BLOCK_LETTER_SETS))
def test_block_letter_sets_do_not_regress_and_match_the_model_card(
    name: str, measured_sets: dict[str, Measured]
) -> None:
    chosen, measured = BLOCK_LETTER_SETS[name], measured_sets[name]
    report = SHIPPED_REPORT
    assert chosen.levels - len(measured.misses) >= chosen.shipped_correct, measured.misses  # counts: no rounding
    assert measured.top1 == pytest.approx(report[chosen.report_key]["top1"])


def test_later_sets_differ_from_earlier_ones_and_build_as_drawn() -> None:
    def rows(picture: str) -> tuple[str, ...]:
        return tuple(line.strip() for line in picture.strip().splitlines())

    earlier: set[tuple[str, ...]] = set()
    for chosen in BLOCK_LETTER_SETS.values():
        pictures = {rows(p) for designs in chosen.designs.values() for p in designs}
        assert set(chosen.designs) == set(chosen.letters) and len(pictures) == chosen.levels
        assert not pictures & earlier
        assert len(block_letter_levels(chosen.designs)) == chosen.levels  # drop_sequence raises if the rule breaks one
        earlier |= pictures
    # left out as unclear letters, not as unbuildable
    unclear = {
        name.removeprefix("UNCLEAR_"): pictures
        for set_name in ("fifth", "sixth", "ninth")
        for name, pictures in load_letter_set(set_name).unclear.items()
    }
    assert sorted(unclear) == ["M", "V", "Z"] and len(block_letter_levels(unclear)) == 6


def test_held_out_fonts_reach_the_target(held_out_fonts: Measured) -> None:
    # The measure read as the model card states it: the letters as drawn in block style (no physics
    # defects, no drop-rule rewrite); those two are robustness figures, asserted below only as floors.
    assert held_out_fonts.as_drawn_top1 >= HELD_OUT_TARGET


@pytest.mark.xfail(
    strict=True,
    reason="target missed on the wider readings: all held-out images score 88.4 %, the clean ones 91.6 %"
    " (drop-rule rewrites and defects included); see the model card",
)
def test_held_out_fonts_with_rewrites_and_defects_reach_the_target(held_out_fonts: Measured) -> None:
    assert held_out_fonts.top1 >= HELD_OUT_TARGET and held_out_fonts.clean_top1 >= HELD_OUT_TARGET


def test_held_out_fonts_do_not_regress_and_match_the_model_card(held_out_fonts: Measured) -> None:
    report = SHIPPED_REPORT
    assert held_out_fonts.top1 >= SHIPPED_HELD_OUT and held_out_fonts.clean_top1 >= SHIPPED_HELD_OUT_CLEAN
    assert held_out_fonts.as_drawn_top1 >= SHIPPED_HELD_OUT_AS_DRAWN
    # the shipped JSON's figures are these (up to floating-point ties between BLAS builds)
    figures = report["held_out_fonts"]
    assert held_out_fonts.top1 == pytest.approx(figures["all"]["top1"], abs=0.002)
    assert held_out_fonts.clean_top1 == pytest.approx(figures["clean"]["top1"], abs=0.002)
    assert held_out_fonts.as_drawn_top1 == pytest.approx(figures["clean_as_drawn"]["top1"], abs=0.002)


def test_held_out_families_were_never_trained_on() -> None:
    from tools.pcg_classifier.train_classifier import font_family

    report = SHIPPED_REPORT
    assert report["name"] == EmbeddedClassifier.load().name
    networks = report.get("members", [report])  # an ensemble's JSON describes each member's training
    assert len(networks) == len(EmbeddedClassifier.load().networks)
    train_files = {name for network in networks for name in network["data"]["train_font_files"]}
    held_out = report["held_out_fonts"]
    assert set(held_out["families"]) == set(HELD_OUT_FAMILIES)
    assert not {font_family(Path(name)) for name in train_files} & set(HELD_OUT_FAMILIES)
    assert not train_files & set(held_out["font_files"])


def test_training_defaults_name_the_shipped_recipe() -> None:
    from tools.pcg_classifier.train_classifier import SHIPPED_DESIGN_SETS, SHIPPED_MEMBERS

    report = SHIPPED_REPORT
    assert sorted(SHIPPED_DESIGN_SETS) == report["training"]["design_sets"]
    assert len(report["members"]) == SHIPPED_MEMBERS == len(EmbeddedClassifier.load().networks)
    assert {name for name, chosen in BLOCK_LETTER_SETS.items() if chosen.report_key in SHIPPED_DESIGN_SETS} == (
        SEEN_IN_TRAINING
    )


def test_quick_training_run_writes_a_loadable_model(tmp_path: Path) -> None:
    torch = need_module("torch", "hf")
    from tools.pcg_classifier.train_classifier import NO_HELD_OUT_FONTS, find_fonts, main

    # a fresh Debian machine: DejaVu only, so one family trains and none is held out
    dejavu = [font.path for font in find_fonts() if font.family == "vera"]
    need_fonts([] if dejavu else ["DejaVu (fonts-dejavu-core)"], "the quick training run")
    fonts = tmp_path / "fonts"
    fonts.mkdir()
    for path in dejavu:
        (fonts / path.name).symlink_to(path)
    out = tmp_path / "model" / "quick.npz"
    threads = torch.get_num_threads()
    try:
        common = ["--quick", "--workers", "1", "--threads", "1", "--builder-per-letter", "13", "--design-sets", ""]
        common += ["--font-root", str(fonts)]
        options = [*common, "--members", "1"]  # the defaults train the shipped pair on eight sets' variants
        assert main(["--out", str(out), *options, "--design-sets", "block_letters", "--design-per-letter", "3"]) == 0
        assert main(["--out", str(out), *options, "--design-sets", "no_such_set"]) == 2
        assert main(["--out", str(tmp_path / "pair.npz"), *options, "--members", "2", "--seed", "4"]) == 0
        assert main(["--out", str(tmp_path / "taught.npz"), *options, "--teacher", str(tmp_path / "pair.npz")]) == 0
        joined = ["--ensemble", f"{out},{tmp_path / 'taught.npz'}"]
        assert main(["--out", str(tmp_path / "joined.npz"), *common, *joined]) == 0
        with pytest.raises(SystemExit):  # options that train networks do not go with one that trains none
            main(["--out", str(tmp_path / "joined.npz"), *common, *joined, "--members", "2"])
        first = json.loads((tmp_path / "taught.json").read_text("utf-8"))
        assert main(["--out", str(tmp_path / "taught.npz"), *common, "--evaluate-only"]) == 0
        again = json.loads((tmp_path / "taught.json").read_text("utf-8"))
    finally:
        torch.set_num_threads(threads)
    classifier = EmbeddedClassifier.load(out)
    report = out.with_suffix(".json").read_text("utf-8")
    assert classifier.name.split(":")[1] in report and '"block_letters_third_set"' in report
    figures = json.loads(report)
    assert figures["training"]["builder_images_per_letter"] == 13
    assert figures["training"]["design_sets"] == ["block_letters"]
    assert figures["training"]["design_images_per_letter"] == 3
    assert figures["block_letters"]["seen_in_training"] and not figures["block_letters_third_set"]["seen_in_training"]
    assert figures["held_out_fonts"]["note"] == NO_HELD_OUT_FONTS and figures["held_out_fonts"]["all"]["count"] == 0
    prediction = classifier.predict([rgba(np.full((1024, 1024), 255, np.uint8))])[0]
    assert sum(prediction.probabilities) == pytest.approx(1.0, abs=1e-5)
    pair = json.loads((tmp_path / "pair.json").read_text("utf-8"))  # two networks from seeds 4 and 5, one file
    assert [member["seed"] for member in pair["members"]] == [4, 5] and pair["quick"]
    assert pair["name"] == EmbeddedClassifier.load(tmp_path / "pair.npz").name
    assert len(EmbeddedClassifier.load(tmp_path / "pair.npz").networks) == 2
    taught = json.loads((tmp_path / "taught.json").read_text("utf-8"))  # one network that learnt from the pair
    assert taught["training"]["teacher"] == pair["name"] and taught["seed"] == 0
    assert len(EmbeddedClassifier.load(tmp_path / "taught.npz").networks) == 1
    # re-measured, the same weights give the same figures, and the training record is kept
    assert again["held_out_fonts"] == first["held_out_fonts"] and again["training"] == first["training"]
    joined = json.loads((tmp_path / "joined.json").read_text("utf-8"))  # the first model and the taught one
    assert [member["name"] for member in joined["members"]] == [classifier.name, taught["name"]]
    assert joined["name"] == EmbeddedClassifier.load(tmp_path / "joined.npz").name


def test_weights_for_another_input_size_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.npz"
    spec = {"format": 1, "input_size": 32, "strides": [2], "pool_after": [False]}
    np.savez(path, spec=np.array(json.dumps(spec)))
    with pytest.raises(InputError, match="32-pixel inputs"):
        EmbeddedClassifier.load(path)
