"""The hf: and onnx: back-ends on a tiny random ViT saved locally (no hub access)."""

from __future__ import annotations

import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from podium.core.errors import ConfigError, DependencyError
from podium.tracks.pcg.classifiers import LETTERS, ClassifierSpec, load_classifier
from podium.tracks.pcg.classifiers.hf import hub_unreachable
from podium.tracks.pcg.competition import open_competition
from podium.tracks.pcg.editions import edition
from podium.tracks.pcg.rules.classify import ClassifiedImage, similarity_json
from podium.tracks.pcg.stages.driver import StageSettings
from tests.needs import need_module

torch = need_module("torch", "hf")
transformers = need_module("transformers", "hf")


def level_images(count: int) -> list[Image.Image]:
    rng = np.random.default_rng(1)
    images = []
    for _ in range(count):
        gray = np.full((1024, 1024), 255, np.uint8)
        r, c = rng.integers(100, 700, size=2)
        gray[r : r + 200, c : c + 60] = 0
        rgba = np.dstack([gray, gray, gray, np.full_like(gray, 255)])
        images.append(Image.fromarray(rgba, "RGBA"))
    return images


def test_hf_matches_calling_transformers_directly(tiny_vit: Path) -> None:
    images = level_images(3)
    ours = load_classifier(f"hf:{tiny_vit}").predict(images)
    processor = transformers.AutoImageProcessor.from_pretrained(tiny_vit)
    model = transformers.AutoModelForImageClassification.from_pretrained(tiny_vit).eval()
    for image, prediction in zip(images, ours, strict=True):
        with torch.no_grad():
            outputs = model(**processor(images=image.convert("RGB"), return_tensors="pt"), output_hidden_states=True)
        expected = torch.nn.functional.softmax(outputs.logits, dim=-1)[0].tolist()
        assert list(prediction.probabilities) == expected
        assert prediction.embedding == tuple(outputs.hidden_states[-1][0, 0, :].tolist())


@pytest.mark.parametrize("int8", [False, True])
def test_onnx_export_agrees(tiny_vit: Path, tmp_path: Path, int8: bool) -> None:
    need_module("onnxruntime", "onnx")
    from podium.tracks.pcg.classifiers.onnx import export_onnx

    model = export_onnx(str(tiny_vit), tmp_path / "letters.onnx", int8=int8)
    images = level_images(4)
    reference = load_classifier(f"hf:{tiny_vit}").predict(images)
    exported = load_classifier(f"onnx:{model}", batch_size=2).predict(images)
    tolerance = 1e-5 if not int8 else 5e-2
    for a, b in zip(reference, exported, strict=True):
        assert np.allclose(a.probabilities, b.probabilities, atol=tolerance, rtol=0)
    if not int8:
        assert all(
            np.allclose(a.embedding or (), b.embedding or (), atol=1e-4)
            for a, b in zip(reference, exported, strict=True)
        )


def test_identity_is_the_loaded_name_without_loading(tiny_vit: Path, tmp_path: Path) -> None:
    need_module("onnxruntime", "onnx")
    from podium.tracks.pcg.classifiers.onnx import export_onnx

    model = export_onnx(str(tiny_vit), tmp_path / "letters.onnx", int8=False)
    for spec in ("embedded", f"hf:{tiny_vit}", f"onnx:{model}"):
        assert ClassifierSpec(spec).identity() == load_classifier(spec).name
    with pytest.raises(ConfigError, match="unknown classifier"):
        ClassifierSpec("vit").identity()


def test_identity_names_a_missing_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None if name == "transformers" else found(name))
    with pytest.raises(DependencyError, match="needs transformers") as info:
        ClassifierSpec("hf:pittawat/vit-base-letter").identity()
    assert info.value.fix is not None and "podium[hf]" in info.value.fix


def test_unknown_classifier_spec_says_what_to_pass() -> None:
    with pytest.raises(ConfigError, match="unknown classifier") as info:
        load_classifier("vit")
    assert info.value.fix is not None and "hf:" in info.value.fix


def test_similarity_file_has_the_official_format(tiny_vit: Path) -> None:
    predictions = load_classifier(f"hf:{tiny_vit}").predict(level_images(2))
    text = similarity_json("C", [ClassifiedImage(f"t_C_{i}.png", p) for i, p in enumerate(predictions, 1)], True)
    document = json.loads(text)
    assert text == json.dumps(document, indent=2)
    assert list(document) == ["count", "similarityRate", "trials", "similarities"]
    assert document["trials"][0] == {"id": "t_C_1.png", "label": "C", "similarity": predictions[0].probabilities[2]}
    raws = document["similarities"][1]["raws"]
    assert [r["label"] for r in raws] == list(LETTERS) and raws[0]["id"] == "t_C_2.png"
    assert len(document["similarities"][0]["cls_embedding"]) == 32
    assert document["similarityRate"] == sum(t["similarity"] for t in document["trials"]) / 2


def test_classify_stage_writes_official_files_and_resumes(tiny_vit: Path, tmp_path: Path) -> None:
    from podium.tracks.pcg.stages.classify import run_classify

    for letter in ("A", "B"):
        folder = tmp_path / "team" / "images" / letter
        folder.mkdir(parents=True)
        for n, image in enumerate(level_images(2), start=1):
            image.save(folder / f"team_{letter}_{n}.png")
        (folder / f"team_{letter}_1_raw.png").write_bytes(b"textured image, ignored")
    (tmp_path / "team" / "images" / "A" / "team_A_9.png").write_bytes(b"not a png")
    classifier = ClassifierSpec(f"hf:{tiny_vit}")
    summary = run_classify(open_competition(tmp_path, edition(2025)), StageSettings(classifier=classifier))
    verdicts = {e.trial: e.verdict for e in summary.events}
    assert verdicts["team_A_9.png"] == "malformed_input" and "team_A_1_raw.png" not in verdicts
    assert sum(v == "ok" for v in verdicts.values()) == 4
    document = json.loads((tmp_path / "team" / "similarity" / "A.json").read_text())
    assert document["count"] == 2 and "cls_embedding" in document["similarities"][0]
    # a current character folder is skipped as a whole (its similarity file covers every image)
    rerun = run_classify(open_competition(tmp_path, edition(2025)), StageSettings(classifier=classifier))
    assert {e.verdict for e in rerun.events} == {"skipped"}
    run_classify(
        open_competition(tmp_path, edition(2024)), StageSettings(classifier=classifier)
    )  # another edition: redone, without the embedding
    assert (
        "cls_embedding" not in json.loads((tmp_path / "team" / "similarity" / "B.json").read_text())["similarities"][0]
    )


def test_classify_in_worker_processes_writes_what_serial_writes(tiny_vit: Path, tmp_path: Path) -> None:
    from podium.core.execution.executor import ProcessPoolExecutor, SerialExecutor
    from podium.tracks.pcg.stages.classify import run_classify

    roots = {"serial": tmp_path / "serial", "pool": tmp_path / "pool"}
    for root in roots.values():
        for letter in ("A", "B", "C"):
            folder = root / "team" / "images" / letter
            folder.mkdir(parents=True)
            for n, image in enumerate(level_images(2), start=1):
                image.save(folder / f"team_{letter}_{n}.png")
        (root / "team" / "images" / "B" / "team_B_3.png").write_bytes(b"not a png")  # found in a worker
    spec = ClassifierSpec(f"hf:{tiny_vit}")
    serial = run_classify(
        open_competition(roots["serial"], edition(2025)), StageSettings(classifier=spec, executor=SerialExecutor())
    )
    pooled = run_classify(
        open_competition(roots["pool"], edition(2025)),
        StageSettings(classifier=spec, executor=ProcessPoolExecutor(workers=2)),
    )
    verdicts = sorted((e.character, e.trial, e.verdict) for e in pooled.events)
    assert verdicts == sorted((e.character, e.trial, e.verdict) for e in serial.events)
    assert ("B", "team_B_3.png", "malformed_input") in verdicts
    for letter in ("A", "B", "C"):
        written = [(root / "team" / "similarity" / f"{letter}.json").read_bytes() for root in roots.values()]
        assert written[0] == written[1]


def test_an_unreachable_hub_fails_in_seconds_when_the_model_is_not_cached(tmp_path: Path) -> None:
    # the hub client alone retried for 1 min 45 s here; the probe answers in one refused connection
    image = tmp_path / "competition" / "team1" / "images" / "I" / "team1_I_1.png"
    image.parent.mkdir(parents=True)
    Image.new("RGBA", (64, 64), "white").save(image)
    with socket.socket() as closed:  # bound, never listening: connections are refused
        closed.bind(("127.0.0.1", 0))
        hub = f"http://127.0.0.1:{closed.getsockname()[1]}"
        env = os.environ | {"HF_HOME": str(tmp_path / "hf-home"), "HF_ENDPOINT": hub}
        env.pop("HF_HUB_OFFLINE", None)
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "podium", "pcg", "classify", str(tmp_path / "competition"), "--edition", "2023",
             "--classifier", "hf:pittawat/vit-base-letter", "--workers", "1"],
            capture_output=True, text=True, env=env, timeout=120,
        )  # fmt: skip
    assert time.monotonic() - started < 30, done.stderr
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-2:] == [
        f"error: cannot load the model 'pittawat/vit-base-letter': the Hugging Face hub at {hub} does not answer "
        "([Errno 111] Connection refused) and the model is not in the local cache",
        "fix: connect to the network (or set HF_ENDPOINT to a reachable mirror), or pass a local folder saved with "
        "save_pretrained()",
    ]


def test_a_hub_that_answers_with_an_error_status_counts_as_reachable() -> None:
    class Missing(http.server.BaseHTTPRequestHandler):
        def do_HEAD(self) -> None:  # noqa: N802 (the stdlib's name)
            self.send_response(404)
            self.end_headers()

        def log_message(self, *_args: object) -> None:
            pass

    with http.server.HTTPServer(("127.0.0.1", 0), Missing) as server:
        thread = threading.Thread(target=server.handle_request)
        thread.start()
        assert hub_unreachable(f"http://127.0.0.1:{server.server_port}", "someone/model") is None
        thread.join()
    assert hub_unreachable(f"http://127.0.0.1:{server.server_port}", "someone/model") is not None  # now closed
