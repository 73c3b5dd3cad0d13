"""Letter classifiers behind one interface: official ViT (``hf:``), its ONNX export (``onnx:``), ``embedded``.

A classifier maps level images to 26 class probabilities (A=0 … Z=25) and, where it has one, an embedding (the
official ViT's pre-LayerNorm CLS token, used by 2025's diversity). ``load_classifier`` parses a spec string and
imports only the back-end it names, so the optional extras are needed only when used. Jobs that classify in
worker processes carry a ``ClassifierSpec``, never a model: each process loads the model once, on first use.
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt
from PIL import Image

from podium.core.errors import ConfigError, DependencyError

LETTERS = tuple(chr(ord("A") + i) for i in range(26))
# what to install when an optional back-end's packages are missing (said the same wherever it is found out)
HF_FIX = "pip install 'podium[hf]' (CPU torch: pip install torch==2.13.0 transformers)"
ONNX_FIX = "pip install 'podium[onnx]'"


@dataclass(frozen=True, slots=True)
class LetterPrediction:
    """What a classifier says about one image."""

    probabilities: tuple[float, ...]  # softmax over A..Z, as float32 values
    embedding: tuple[float, ...] | None  # e.g. the ViT's CLS token; None when the back-end has none


class LetterClassifier(Protocol):
    """Turns images into letter predictions."""

    name: str

    def predict(self, images: Sequence[Image.Image]) -> list[LetterPrediction]:
        """Classify ``images`` (as loaded from the evaluator's PNG files)."""
        ...


class InputClassifier(LetterClassifier, Protocol):
    """A classifier that also takes its model's inputs directly, e.g. made from a rendered image (``input_maker``)."""

    def image_input(self, image: Image.Image) -> npt.NDArray[np.float32]:
        """The model's input for one image as loaded from a file."""
        ...

    def predict_arrays(self, inputs: npt.NDArray[np.float32]) -> list[LetterPrediction]:
        """Predictions for stacked model inputs; the same as ``predict`` on the images they were made from."""
        ...


def softmax(logits: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Row-wise softmax in float32."""
    shifted = logits - logits.max(axis=-1, keepdims=True)
    exp = np.exp(shifted)
    result: npt.NDArray[np.float32] = (exp / exp.sum(axis=-1, keepdims=True)).astype(np.float32)
    return result


@dataclass(frozen=True, slots=True)
class ClassifierSpec:
    """Which classifier to use (``load_classifier``'s arguments); cheap to send to a worker process."""

    spec: str
    batch_size: int = 1

    def load(self) -> LetterClassifier:
        """The classifier, loaded once per process and kept."""
        return _loaded_classifier(self.spec, self.batch_size)

    @property
    def per_image(self) -> bool:
        """Whether an image's prediction is independent of the images batched with it.

        The embedded classifier runs each image alone; ``hf:`` and ``onnx:`` do at batch size 1, and a larger
        batch can change the last bits of a prediction with its neighbours.
        """
        return _parse(self.spec)[0] == "embedded" or self.batch_size == 1

    def input_maker(self) -> Callable[[npt.NDArray[np.uint8]], npt.NDArray[np.float32]] | None:
        """The function that makes this classifier's inputs from gray images, or None if it takes none.

        Only an ``InputClassifier`` takes them; the function is module-level, so it can go to worker processes.
        """
        if _parse(self.spec)[0] != "embedded":
            return None
        from podium.tracks.pcg.classifiers.embedded import preprocess

        return preprocess

    def identity(self) -> str:
        """The loaded classifier's ``name``, without loading it.

        A parent that only plans jobs (and keys its ledger by this) never builds the model, and a missing extra or
        file still fails here, before any job.
        """
        kind, target = _parse(self.spec)
        if kind == "embedded":
            from podium.tracks.pcg.classifiers.embedded import weights_identity

            return weights_identity()
        if kind == "hf":
            _require_modules(("torch", "transformers"), "hf:", HF_FIX)
            return f"hf:{target}"
        _require_modules(("onnxruntime",), "onnx:", ONNX_FIX)
        return f"onnx:{Path(target)}"


@functools.cache
def _loaded_classifier(spec: str, batch_size: int) -> LetterClassifier:
    return load_classifier(spec, batch_size=batch_size)


def load_classifier(spec: str, *, batch_size: int = 1) -> LetterClassifier:
    """``embedded`` | ``hf:<hub id or local dir>`` | ``onnx:<file>``."""
    kind, target = _parse(spec)
    if kind == "embedded":
        from podium.tracks.pcg.classifiers.embedded import EmbeddedClassifier  # NumPy only: always installed

        return EmbeddedClassifier.load()
    if kind == "hf":
        from podium.tracks.pcg.classifiers.hf import HuggingFaceClassifier

        return HuggingFaceClassifier(target, batch_size=batch_size)
    from podium.tracks.pcg.classifiers.onnx import OnnxClassifier

    return OnnxClassifier(Path(target), batch_size=batch_size)


def _parse(spec: str) -> tuple[str, str]:
    """A spec's back-end (``embedded``, ``hf`` or ``onnx``) and target, or the error that names the valid forms."""
    kind, _, target = spec.partition(":")
    if (kind == "embedded" and not target) or (kind in ("hf", "onnx") and target):
        return kind, target
    raise ConfigError(
        f"unknown classifier {spec!r}", fix="use 'embedded', 'hf:<hub id or local folder>' or 'onnx:<model file>'"
    )


def _require_modules(modules: tuple[str, ...], kind: str, fix: str) -> None:
    """Fail early, without importing them, when an optional extra is not installed."""
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        raise DependencyError(f"the {kind} classifier needs {' and '.join(missing)}", fix=fix)
