"""The embedded classifier: small CNNs shipped with podium (two, averaged), run with NumPy alone (no torch at run time).

It was trained only on synthetic images in the evaluator's style (``tools/pcg_classifier/train_classifier.py``, a
tool of the repository, not of the package; data, accuracy and limits in ``docs/pcg-classifier-model-card.md``).
Its probabilities approximate, but do not equal, the official ViT's, so scores made with it are not comparable
with official leaderboards.

Input: the evaluator's 1024×1024 image, turned to gray and shrunk by ``preprocess`` to 64×64 ink coverage (the
mean of each 16×16 block, 1 = black) — the same function makes the training data. Network: 3×3 convolutions
(padding 1, strides and 2×2 max pooling where the weights file says, batch norm folded into the weights) with ReLU,
then a hidden linear layer with ReLU (its output is the ``embedding``) and a linear layer to the 26 logits. A weights
file may hold several such networks (an ensemble, its arrays prefixed ``m0.``, ``m1.``, …): the probabilities are
then the mean of the members' softmax, and the embedding is their hidden features side by side.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from PIL import Image
from threadpoolctl import ThreadpoolController

from podium.core.errors import DependencyError, InputError
from podium.tracks.pcg.classifiers import LETTERS, LetterPrediction, softmax

INPUT_SIZE = 64
WEIGHTS_PATH = Path(__file__).with_name("letter_cnn.npz")
# run from a checkout of the repository: the training code is a tool, not part of the installed package
TRAIN_COMMAND = (
    "python -m tools.pcg_classifier.train_classifier --out src/podium/tracks/pcg/classifiers/letter_cnn.npz"
    " --report tools/pcg_classifier/letter_cnn.json"
)
FORMAT_VERSION = 1

FloatArray = npt.NDArray[np.float32]


@functools.cache
def _blas_threads() -> ThreadpoolController:
    """The thread pools of this process, found once (the BLAS numpy loaded at import is all we limit).

    ``threadpool_limits`` looks for them in ``/proc/self/maps`` at every call: ~1 ms of each image's ~16 ms in
    simulate's workers.
    """
    return ThreadpoolController()


@dataclass(frozen=True, slots=True)
class NetworkOutput:
    """One network's pass over a batch: logits (N, 26) and the hidden layer's features (N, hidden)."""

    logits: FloatArray
    features: FloatArray


@dataclass(frozen=True, slots=True)
class EnsembleOutput:
    """The classifier's pass over a batch: mean probabilities (N, 26) and the members' features side by side."""

    probabilities: FloatArray
    embeddings: FloatArray


def preprocess(gray: npt.NDArray[np.uint8]) -> FloatArray:
    """A gray image (255 = white) as the model's 64×64 input: the ink coverage of each cell, 0 to 1, float32.

    A side that is a multiple of 64 (the evaluator's 1024) is averaged over exact blocks; any other size is first
    resized to 1024×1024 with PIL's bilinear filter.
    """
    if gray.ndim != 2:
        raise ValueError(f"expected a 2-D gray image, got shape {gray.shape}")
    height, width = gray.shape
    if height != width or height % INPUT_SIZE:
        gray = np.asarray(Image.fromarray(gray).resize((1024, 1024), Image.Resampling.BILINEAR))
        height = width = 1024
    step = height // INPUT_SIZE
    # sum each step×step block in two passes, exactly (32-bit integers), then scale once
    rows = gray.reshape(INPUT_SIZE, step, width).sum(axis=1, dtype=np.uint32)
    blocks = rows.reshape(INPUT_SIZE, INPUT_SIZE, step).sum(axis=2, dtype=np.uint32)
    scale = np.float32(1.0 / (255.0 * step * step))
    coverage: FloatArray = np.float32(1.0) - blocks.astype(np.float32) * scale
    return coverage


def image_to_gray(image: Image.Image) -> npt.NDArray[np.uint8]:
    """The image as 8-bit gray; transparency is dropped like the official script's ``convert("RGB")`` does."""
    if image.mode == "L":
        return np.asarray(image)
    if image.mode not in ("RGB", "RGBA", "LA", "1"):  # palette and others: through RGB, as the official script
        image = image.convert("RGB")
    return np.asarray(image.convert("L"))  # PIL's RGBA → L ignores alpha: the same gray as RGB → L


@dataclass(frozen=True, slots=True)
class _Conv:
    weight: FloatArray  # (3, 3, in, out) flattened to (9·in, out)
    bias: FloatArray
    stride: int
    pool: bool  # a 2×2 max pool follows the ReLU


def feature_map_side(strides: Sequence[int], pool_after: Sequence[bool]) -> int:
    """Side of the last feature map for a 64×64 input: a convolution (padding 1) divides by its stride, a pool by 2."""
    side = INPUT_SIZE
    for stride, pool in zip(strides, pool_after, strict=True):
        side = (side - 1) // int(stride) + 1
        side //= 2 if pool else 1
    return side


def _conv3x3_relu(x: FloatArray, layer: _Conv) -> FloatArray:
    """3×3 convolution (padding 1) on NHWC ``x``, plus bias and ReLU, as one matrix product (im2col)."""
    n, h, w, c = x.shape
    step = layer.stride
    out_h, out_w = (h - 1) // step + 1, (w - 1) // step + 1
    padded = np.zeros((n, h + 2, w + 2, c), dtype=np.float32)
    padded[:, 1:-1, 1:-1, :] = x
    sn, sh, sw, sc = padded.strides
    windows = np.lib.stride_tricks.as_strided(
        padded, shape=(n, out_h, out_w, 3, 3, c), strides=(sn, sh * step, sw * step, sh, sw, sc), writeable=False
    )
    columns = windows.reshape(n * out_h * out_w, 9 * c)
    out = columns @ layer.weight
    out += layer.bias
    np.maximum(out, 0, out=out)
    result = out.reshape(n, out_h, out_w, -1)
    if layer.pool:
        k = result.shape[-1]
        result = result.reshape(n, out_h // 2, 2, out_w // 2, 2, k).max(axis=(2, 4))
    return result


class LetterCnn:
    """The network's weights and its NumPy forward pass."""

    def __init__(self, arrays: dict[str, npt.NDArray[np.generic]]) -> None:
        spec = json.loads(str(arrays["spec"]))
        if spec.get("format") != FORMAT_VERSION:
            raise ValueError(f"weights format {spec.get('format')!r}, expected {FORMAT_VERSION}")
        if spec.get("input_size") != INPUT_SIZE:
            raise ValueError(f"weights for {spec.get('input_size')!r}-pixel inputs, expected {INPUT_SIZE}")
        self.convs: list[_Conv] = []
        for index, (stride, pool) in enumerate(zip(spec["strides"], spec["pool_after"], strict=True)):
            weight = np.asarray(arrays[f"conv{index}.weight"], dtype=np.float32)  # torch layout (out, in, 3, 3)
            out_channels, in_channels = weight.shape[:2]
            matrix = np.ascontiguousarray(weight.transpose(2, 3, 1, 0).reshape(9 * in_channels, out_channels))
            bias = np.asarray(arrays[f"conv{index}.bias"], dtype=np.float32)
            self.convs.append(_Conv(matrix, bias, int(stride), bool(pool)))
        size = feature_map_side(spec["strides"], spec["pool_after"])
        hidden = np.asarray(arrays["hidden.weight"], dtype=np.float32)  # (features, channels·size·size), CHW order
        channels = self.convs[-1].weight.shape[1]
        # the flattened NHWC activations meet the weights in HWC order
        hidden = hidden.reshape(-1, channels, size, size).transpose(0, 2, 3, 1).reshape(hidden.shape[0], -1)
        self.hidden_weight = np.ascontiguousarray(hidden.T)
        self.hidden_bias = np.asarray(arrays["hidden.bias"], dtype=np.float32)
        self.out_weight = np.ascontiguousarray(np.asarray(arrays["out.weight"], dtype=np.float32).T)
        self.out_bias = np.asarray(arrays["out.bias"], dtype=np.float32)
        if self.out_weight.shape[1] != len(LETTERS):
            raise ValueError(f"the output layer has {self.out_weight.shape[1]} classes, expected 26")

    def forward(self, inputs: FloatArray) -> NetworkOutput:
        """Logits (N, 26) and embeddings (N, hidden) for preprocessed inputs (N, 64, 64)."""
        x = np.ascontiguousarray(inputs, dtype=np.float32)[..., None]
        for layer in self.convs:
            x = _conv3x3_relu(x, layer)
        features = x.reshape(x.shape[0], -1) @ self.hidden_weight
        features += self.hidden_bias
        np.maximum(features, 0, out=features)
        logits = features @ self.out_weight
        logits += self.out_bias
        return NetworkOutput(logits, features)


def weights_identity(path: Path = WEIGHTS_PATH) -> str:
    """The ``name`` the classifier loaded from ``path`` will have, without building the network."""
    return _identity(_weights_bytes(path))


def _weights_bytes(path: Path) -> bytes:
    if not path.is_file():
        raise DependencyError(
            "the embedded classifier's weights file is missing",
            path=path,
            fix=f"train it with: {TRAIN_COMMAND} (needs torch; fonts from scripts/install-fonts.sh)",
        )
    return path.read_bytes()


def _identity(data: bytes) -> str:
    return f"embedded:{hashlib.sha256(data).hexdigest()[:12]}"


def load_networks(arrays: dict[str, npt.NDArray[np.generic]]) -> list[LetterCnn]:
    """The networks of a weights file's arrays: one, or an ensemble's members (``members`` in the top spec)."""
    members = json.loads(str(arrays["spec"])).get("members")
    if members is None:
        return [LetterCnn(arrays)]
    networks = []
    for index in range(int(members)):
        prefix = f"m{index}."
        networks.append(LetterCnn({key.removeprefix(prefix): a for key, a in arrays.items() if key.startswith(prefix)}))
    if not networks:
        raise ValueError("an ensemble with no members")
    return networks


class EmbeddedClassifier:
    """The shipped CNN (or ensemble of CNNs) behind the ``LetterClassifier`` interface."""

    def __init__(self, networks: Sequence[LetterCnn], name: str) -> None:
        self.networks = list(networks)
        self.name = name

    @classmethod
    def load(cls, path: Path | None = None) -> EmbeddedClassifier:
        """Load weights from ``path`` (default: the ones shipped beside this module)."""
        path = WEIGHTS_PATH if path is None else path
        data = _weights_bytes(path)
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as archive:
                networks = load_networks({key: archive[key] for key in archive.files})
        except (OSError, ValueError, KeyError) as error:
            raise InputError(f"not a letter CNN weights file: {error}", path=path, fix=TRAIN_COMMAND) from None
        return cls(networks, _identity(data))

    def forward(self, inputs: FloatArray) -> EnsembleOutput:
        """Probabilities (N, 26) and embeddings for preprocessed inputs (N, 64, 64), in one pass of every member."""
        outputs = [network.forward(inputs) for network in self.networks]
        probabilities = softmax(outputs[0].logits)
        for output in outputs[1:]:
            probabilities += softmax(output.logits)
        probabilities /= np.float32(len(outputs))
        return EnsembleOutput(probabilities, np.concatenate([output.features for output in outputs], axis=1))

    def predict_arrays(self, inputs: FloatArray) -> list[LetterPrediction]:
        """Predictions for preprocessed inputs (N, 64, 64)."""
        # Each image alone, on one BLAS thread: a matrix product's row can change in its last bits with the
        # batch around it (its place in the kernel's blocks) and with the thread count, and a score must not
        # depend on how a run split its images among batches, processes or machines.
        predictions = []
        with _blas_threads().limit(limits=1, user_api="blas"):
            for index in range(len(inputs)):
                output = self.forward(inputs[index : index + 1])
                predictions.append(
                    LetterPrediction(tuple(output.probabilities[0].tolist()), tuple(output.embeddings[0].tolist()))
                )
        return predictions

    @staticmethod
    def image_input(image: Image.Image) -> FloatArray:
        """The network's input (64×64) for one image as loaded from a file."""
        return preprocess(image_to_gray(image))

    def predict(self, images: Sequence[Image.Image]) -> list[LetterPrediction]:
        """Classify ``images`` (any mode and size; the evaluator's are 1024×1024 RGBA)."""
        if not images:
            return []
        return self.predict_arrays(np.stack([self.image_input(image) for image in images]))
