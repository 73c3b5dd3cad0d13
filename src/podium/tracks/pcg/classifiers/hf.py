"""The official classifier through transformers + torch (the ``hf`` extra), exactly as the official script runs it.

Preprocessing as the official similarity script does it: ``Image.convert("RGB")``, the model's own
``AutoImageProcessor`` (224×224 PIL bilinear, rescale 1/255, mean/std 0.5), ``softmax(logits)``, and since 2025
the CLS token of the last encoder block before the final LayerNorm (``hidden_states[-1][:, 0, :]``).

Each edition's official model is its ``Edition.classifier_model`` (``--classifier hf``); loading
needs network access to the Hugging Face hub, a copy in the hub's cache, or a local folder with a saved copy.

Before loading a hub id, the hub (``HF_ENDPOINT``) is asked once, with a ``HUB_PROBE_TIMEOUT_S`` limit, whether it
answers at all: the hub client would otherwise retry for well over a minute (1 min 45 s measured, more with
workers) before its error. Unreachable, a cached model is loaded from the cache alone, and an uncached one fails
at once saying so.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PIL import Image

from podium.core.errors import DependencyError, InputError
from podium.tracks.pcg.classifiers import HF_FIX, LetterPrediction

HUB_PROBE_TIMEOUT_S = 5.0


def hub_unreachable(endpoint: str, model: str, timeout_s: float = HUB_PROBE_TIMEOUT_S) -> str | None:
    """Why the hub at ``endpoint`` does not answer (one line), or None when it answers at all (any HTTP status)."""
    request = urllib.request.Request(f"{endpoint.rstrip('/')}/api/models/{model}", method="HEAD")
    try:
        with urllib.request.urlopen(request, timeout=timeout_s):  # noqa: S310 (the hub's own https/http URL)
            return None
    except urllib.error.HTTPError:  # it answered: a 401 or 404 is the hub's to explain
        return None
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        return str(reason) or type(reason).__name__


def _cached(model: str) -> bool:
    from huggingface_hub import try_to_load_from_cache

    return isinstance(try_to_load_from_cache(model, "config.json"), str)


def _hub_offline(model: str) -> bool:
    """Whether to load ``model`` from the cache only; raises when the hub is unreachable and nothing is cached."""
    from huggingface_hub import constants

    if Path(model).is_dir() or constants.HF_HUB_OFFLINE:
        return False  # a local folder; or offline by the user's own setting, which the hub client honours
    why = hub_unreachable(constants.ENDPOINT, model)
    if why is None:
        return False
    if _cached(model):
        return True
    raise InputError(
        f"cannot load the model {model!r}: the Hugging Face hub at {constants.ENDPOINT} does not answer ({why}) "
        "and the model is not in the local cache",
        fix="connect to the network (or set HF_ENDPOINT to a reachable mirror), or pass a local folder saved with "
        "save_pretrained()",
    )


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
        offline = _hub_offline(model)
        try:
            self.processor = transformers.AutoImageProcessor.from_pretrained(
                model, use_fast=False, local_files_only=offline
            )  # PIL, as the official
            self.model = transformers.AutoModelForImageClassification.from_pretrained(model, local_files_only=offline)
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
