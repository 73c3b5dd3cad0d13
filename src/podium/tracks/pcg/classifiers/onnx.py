"""An ONNX export of an ``hf:`` classifier, run with onnxruntime (the ``onnx`` extra), optionally int8.

``export_onnx`` writes a graph with two outputs, ``logits`` and ``cls`` (the pre-LayerNorm CLS token), from the
same preprocessing as ``hf:``; the processor's settings are stored beside the model so inference needs no
transformers. Preprocessing here re-implements the ViT processor's steps with PIL and NumPy (224×224 bilinear,
×1/255, (x − 0.5)/0.5), which gives the same input tensor.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from PIL import Image

from podium.core.errors import DependencyError, InputError
from podium.tracks.pcg.classifiers import ONNX_FIX, LetterPrediction, softmax


def _preprocess(images: Sequence[Image.Image], settings: dict[str, Any]) -> npt.NDArray[np.float32]:
    height, width = settings["size"]
    mean = np.asarray(settings["image_mean"], dtype=np.float32)
    std = np.asarray(settings["image_std"], dtype=np.float32)
    batch = []
    for image in images:
        resized = image.convert("RGB").resize((width, height), resample=settings["resample"])
        pixels = np.asarray(resized, dtype=np.float32) * np.float32(settings["rescale_factor"])
        batch.append(((pixels - mean) / std).transpose(2, 0, 1))
    stacked: npt.NDArray[np.float32] = np.stack(batch).astype(np.float32)
    return stacked


class OnnxClassifier:
    """A classifier exported by ``export_onnx``."""

    def __init__(self, path: Path, *, batch_size: int = 1) -> None:
        try:
            import onnxruntime
        except ImportError:
            raise DependencyError("the onnx: classifier needs onnxruntime", fix=ONNX_FIX) from None
        settings_path = path.with_suffix(".preprocess.json")
        if not path.is_file() or not settings_path.is_file():
            raise InputError(
                "ONNX model or its .preprocess.json not found",
                path=path,
                fix="create both with: podium pcg export-onnx hf:<model> OUT.onnx",
            )
        self.name = f"onnx:{path}"
        self.batch_size = batch_size
        self.settings = json.loads(settings_path.read_text("utf-8"))
        options = onnxruntime.SessionOptions()
        if os.environ.get("OMP_NUM_THREADS") == "1":  # a pool worker (core.execution.executor): one thread each
            options.intra_op_num_threads = options.inter_op_num_threads = 1
        self.session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

    def predict(self, images: Sequence[Image.Image]) -> list[LetterPrediction]:
        """Classify ``images`` in batches of ``batch_size``."""
        predictions = []
        for start in range(0, len(images), self.batch_size):
            pixels = _preprocess(images[start : start + self.batch_size], self.settings)
            logits, cls = self.session.run(["logits", "cls"], {"pixel_values": pixels})
            for row, embedding in zip(softmax(logits), cls, strict=True):
                predictions.append(LetterPrediction(tuple(row.tolist()), tuple(embedding.tolist())))
        return predictions


def export_onnx(model: str, output: Path, *, int8: bool = False) -> Path:
    """Export the ``hf:`` model ``model`` to ``output`` (plus ``.preprocess.json``); ``int8`` quantizes weights."""
    from podium.tracks.pcg.classifiers.hf import HuggingFaceClassifier

    source = HuggingFaceClassifier(model)
    torch = source._torch  # noqa: SLF001 - the module object loaded by the hf back-end

    module_base: Any = torch.nn.Module

    class _WithCls(module_base):  # type: ignore[misc]
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, pixel_values: Any) -> tuple[Any, Any]:
            outputs = self.inner(pixel_values=pixel_values, output_hidden_states=True)
            return outputs.logits, outputs.hidden_states[-1][:, 0, :]

    processor = source.processor
    size = processor.size
    settings: dict[str, Any] = {
        "size": [size["height"], size["width"]],
        "resample": int(processor.resample),
        "rescale_factor": float(processor.rescale_factor),
        "image_mean": list(processor.image_mean),
        "image_std": list(processor.image_std),
    }
    output.parent.mkdir(parents=True, exist_ok=True)
    example = torch.zeros(1, 3, settings["size"][0], settings["size"][1])
    plain = output if not int8 else output.with_suffix(".fp32.onnx")
    with warnings.catch_warnings():
        # Tracing warns about shape checks that are constant for a fixed input size, and the TorchScript
        # exporter about its own deprecation: neither is something a user of the export can act on.
        warnings.simplefilter("ignore", torch.jit.TracerWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(
            _WithCls(source.model).eval(),
            (example,),
            str(plain),
            input_names=["pixel_values"],
            output_names=["logits", "cls"],
            dynamic_axes={"pixel_values": {0: "batch"}, "logits": {0: "batch"}, "cls": {0: "batch"}},
            opset_version=17,
            dynamo=False,
        )
    if int8:
        try:
            from onnxruntime.quantization import QuantType, quantize_dynamic
        except ImportError:
            raise DependencyError("int8 export needs onnxruntime", fix=ONNX_FIX) from None
        quantize_dynamic(str(plain), str(output), weight_type=QuantType.QInt8)
        plain.unlink()
    output.with_suffix(".preprocess.json").write_text(json.dumps(settings, indent=2), "utf-8")
    return output
