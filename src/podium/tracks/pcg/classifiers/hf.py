"""The official classifier through transformers + torch (the ``hf`` extra), exactly as the official script runs it.

Preprocessing as the official similarity script does it: ``Image.convert("RGB")``, the model's own
``AutoImageProcessor`` (224×224 PIL bilinear, rescale 1/255, mean/std 0.5), ``softmax(logits)``, and since 2025
the CLS token of the last encoder block before the final LayerNorm (``hidden_states[-1][:, 0, :]``).

Models: 2024–2025 ``pittawat/vit-base-uppercase-english-characters``, 2023 ``pittawat/vit-base-letter``. Both
need network access to the Hugging Face hub, or a local folder with a saved copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PIL import Image

from podium.core.errors import DependencyError, InputError
from podium.tracks.pcg.classifiers import HF_FIX, LetterPrediction

OFFICIAL_MODELS = {
    2023: "pittawat/vit-base-letter",
    2024: "pittawat/vit-base-uppercase-english-characters",
    2025: "pittawat/vit-base-uppercase-english-characters",
}


def _require() -> tuple[Any, Any]:
    try:
        import torch
        import transformers
    except ImportError:
        raise DependencyError(
            "the hf: classifier needs torch and transformers",
            fix=HF_FIX,
        ) from None
    return torch, transformers


class HuggingFaceClassifier:
    """A ViT image classifier loaded with transformers."""

    def __init__(self, model: str, *, batch_size: int = 1) -> None:
        torch, transformers = _require()
        self.name = f"hf:{model}"
        self._torch = torch
        self.batch_size = batch_size
        try:
            self.processor = transformers.AutoImageProcessor.from_pretrained(
                model, use_fast=False
            )  # PIL, as the official
            self.model = transformers.AutoModelForImageClassification.from_pretrained(model)
        except OSError as error:
            raise InputError(
                f"cannot load the model {model!r}: {str(error).splitlines()[0]}",
                fix="pass a local folder saved with save_pretrained(), or allow access to the Hugging Face hub",
            ) from None
        self.model.eval()

    def predict(self, images: Sequence[Image.Image]) -> list[LetterPrediction]:
        """Classify ``images`` in batches of ``batch_size`` (1 = exactly like the official script)."""
        torch = self._torch
        predictions = []
        for start in range(0, len(images), self.batch_size):
            batch = [image.convert("RGB") for image in images[start : start + self.batch_size]]
            inputs = self.processor(images=batch, return_tensors="pt")
            with torch.no_grad():
                outputs = self.model(**inputs, output_hidden_states=True)
            probabilities = torch.nn.functional.softmax(outputs.logits, dim=-1)
            cls = outputs.hidden_states[-1][:, 0, :]
            for row, embedding in zip(probabilities.tolist(), cls.tolist(), strict=True):
                predictions.append(LetterPrediction(tuple(row), tuple(embedding)))
        return predictions
