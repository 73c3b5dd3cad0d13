"""What changes between the 2023, 2024 and 2025 editions, in one typed record per edition.

2023 (ChatGPT4PCG): prompts qualified by script, function ``ab_drop``, no diversity, weights of two factors.
2024 (ChatGPT4PCG 2): programs, ``drop_block``, diversity on the 26 softmax probabilities.
2025 (LLMs4PCG): like 2024 but diversity on the 768-d CLS embedding, and three models whose prompt scores
are summed before normalisation.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from podium.core.errors import ConfigError


class DiversityVector(enum.StrEnum):
    """Which per-trial vector the diversity stage compares."""

    SOFTMAX = "softmax"  # the 26 class probabilities, ordered A..Z
    CLS_EMBEDDING = "cls_embedding"  # the pre-LayerNorm CLS token of the ViT (768 floats)


@dataclass(frozen=True, slots=True)
class Edition:
    """The rules of one edition that podium's stages depend on."""

    year: int
    prefix: str  # the drop function's name in responses
    diversity: DiversityVector | None  # None: the edition has no diversity factor
    models_summed: bool  # 2025: one scoring run per model, prompt scores summed before normalising

    @property
    def call_prefix(self) -> str:
        """The text a usable line starts with in the text-to-XML stage, e.g. ``drop_block(``."""
        return self.prefix + "("


EDITIONS: dict[int, Edition] = {
    2023: Edition(2023, "ab_drop", None, models_summed=False),
    2024: Edition(2024, "drop_block", DiversityVector.SOFTMAX, models_summed=False),
    2025: Edition(2025, "drop_block", DiversityVector.CLS_EMBEDDING, models_summed=True),
}
DEFAULT_EDITION = 2025

TRIALS_PER_CHARACTER = 10
CHARACTERS = tuple(chr(code) for code in range(ord("A"), ord("Z") + 1))


def edition(year: int) -> Edition:
    """Return the rules of ``year``, or raise a ``ConfigError`` listing the known editions."""
    try:
        return EDITIONS[year]
    except KeyError:
        known = ", ".join(str(y) for y in EDITIONS)
        raise ConfigError(f"unknown edition {year}", fix=f"use one of {known}") from None
