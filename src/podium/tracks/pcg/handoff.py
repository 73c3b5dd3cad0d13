"""Level images handed from simulate to classify inside one ``evaluate`` run, so classify need not decode them.

simulate renders each level as a gray array and writes it as the evaluator's 1024×1024 RGBA PNG; classify reads
the file back and decodes it. With the embedded classifier, decoding is most of classify's time (about 8 ms of
the 10 ms per image; zlib's inflate alone about 5 ms). When the classifier can take an input made straight from
the gray array (``ClassifierSpec.input_maker``), simulate's workers make that input too, and the parent keeps it
here under the SHA-256 of the PNG bytes it wrote; where the workers also classify the image, the parent keeps the
prediction instead. classify uses a kept input only for a file whose bytes hash to
it, so a file changed in between, or one rendered by an earlier (killed) run, is decoded as before. PNG is
lossless, so both ways give the classifier the same input and the same similarity file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from podium.tracks.pcg.classifiers import ClassifierSpec, LetterPrediction

GrayImage = npt.NDArray[np.uint8]
ModelInput = npt.NDArray[np.float32]
# turns a rendered gray image into a classifier's input; a module-level function, so it can go to worker processes
InputMaker = Callable[[GrayImage], ModelInput]


def png_digest(png: bytes) -> bytes:
    """The key an image's input is kept under: the SHA-256 of its PNG file's bytes."""
    return hashlib.sha256(png).digest()


@dataclass(frozen=True, slots=True)
class RenderedInput:
    """A rendered image's PNG digest with the classifier's prediction, or else the classifier's input.

    A predicted image's input stays in the worker: classify only needs the prediction (16 KB an image less to send
    back and keep, 60 MB for the 3,862 distinct images of the 7,800-trial benchmark).
    """

    png_sha256: bytes
    array: ModelInput | None
    prediction: LetterPrediction | None = None


@dataclass
class ImageHandoff:
    """The inputs simulate made in this run, found again by classify from the PNG bytes it reads.

    With ``classifier`` set, simulate's workers also classify each image they render, while they hold it: classify
    then needs no job for it, only the prediction kept here (the classifier must predict each image alone:
    ``ClassifierSpec.per_image``).
    """

    make_input: InputMaker
    classifier: ClassifierSpec | None = None
    _inputs: dict[bytes, ModelInput] = field(default_factory=dict)
    _predictions: dict[bytes, LetterPrediction] = field(default_factory=dict)

    def keep(self, rendered: RenderedInput) -> None:
        """Remember one rendered image's input or prediction (identical images share one entry)."""
        if rendered.array is not None:
            self._inputs[rendered.png_sha256] = rendered.array
        if rendered.prediction is not None:
            self._predictions[rendered.png_sha256] = rendered.prediction

    def prediction(self, png_sha256: bytes) -> LetterPrediction | None:
        """The prediction simulate made for the image whose PNG bytes have this SHA-256, if it made one."""
        return self._predictions.get(png_sha256)

    def input_or_bytes(self, png: bytes, png_sha256: bytes) -> ModelInput | bytes:
        """The input kept for the PNG bytes with this SHA-256, if simulate made one in this run; else the bytes."""
        found = self._inputs.get(png_sha256)
        return png if found is None else found

    def __len__(self) -> int:
        return len(self._inputs.keys() | self._predictions.keys())
