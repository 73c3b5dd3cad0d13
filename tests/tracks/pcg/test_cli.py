"""The pcg command line's own choices: the edition's official classifier behind ``--classifier hf``."""

from __future__ import annotations

from podium.tracks.pcg.cli import _classifier
from podium.tracks.pcg.editions import edition


def test_hf_alone_names_the_editions_official_vit_and_other_specs_pass_unchanged() -> None:
    assert _classifier("hf", edition(2023)) == "hf:pittawat/vit-base-letter"
    assert _classifier("hf", edition(2025)) == "hf:pittawat/vit-base-uppercase-english-characters"
    assert _classifier("hf:./my-vit", edition(2023)) == "hf:./my-vit"
    assert _classifier("embedded", edition(2024)) == "embedded"
