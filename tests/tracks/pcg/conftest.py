"""Fixtures of the PCG tests: a tiny random ViT saved locally stands in for the official classifier."""

from __future__ import annotations

from pathlib import Path

import pytest

from podium.tracks.pcg.classifiers import LETTERS
from tests.needs import need_module


@pytest.fixture(scope="session")
def tiny_vit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch = need_module("torch", "hf")
    transformers = need_module("transformers", "hf")
    folder = tmp_path_factory.mktemp("tiny-vit")
    torch.manual_seed(0)
    config = transformers.ViTConfig(
        image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, num_labels=26, id2label=dict(enumerate(LETTERS)),
        label2id={c: i for i, c in enumerate(LETTERS)},
    )  # fmt: skip
    transformers.ViTForImageClassification(config).save_pretrained(folder)
    processor = transformers.ViTImageProcessor(
        size={"height": 32, "width": 32}, image_mean=[0.5] * 3, image_std=[0.5] * 3
    )
    processor.save_pretrained(folder)
    return folder
