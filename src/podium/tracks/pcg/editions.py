"""Every rule that differs between the ChatGPT4PCG / LLMs4PCG editions, in one typed record per edition.

Each stage reads the record it is given; none tests a year. Adding an edition is one ``Edition`` in ``EDITIONS``
and its tests (``docs/design/pcg-editions.md`` says how; its table of differences is ``differences_table()``).
The rules restated with their sources: ``docs/rules/pcg.md``.

2023 (ChatGPT4PCG): prompts, qualified by script, function ``ab_drop``, no diversity, the two-factor scoring
files. 2024 (ChatGPT4PCG 2): programs on ``chatgpt4pcg`` 1.2.2, ``drop_block``, diversity on the 26 softmax
probabilities. 2025 (LLMs4PCG): programs on ``llms4pcg`` 2.0.1, diversity on the 768-d CLS embedding, several
models whose prompt scores are summed before normalisation, and a declared winner who must beat the baseline.

Generation (what the official generation code sends and enforces): 2023 (the Node response-gathering script): one
user message, ``gpt-3.5-turbo``, nothing else sent, no per-trial limits. 2024: ``gpt-3.5-turbo-0125``, temperature
1, seed 42, the program's ``n``; before each call the trial's wall time must not exceed 120 s, after each call its
total tokens must not exceed 25,000; the OpenAI client's timeout is 60 s. 2025: the organisers' model, temperature
1, no seed (the line is commented out), 500 s, 25,000 tokens; it sets no timeout of its own, so the OpenAI client's
defaults hold: 600 s to answer, 5 s to connect, 2 retries (podium's ``RetryPolicy`` defaults,
``podium.core.llm.transport``).

2025's final run used "a master seed from which a unique per-trial seed is derived", without publishing how. An
operator may opt in with ``--master-seed``; podium's derivation is ``trial_seed`` below (documented, stable):
every call of trial ``n`` of letter ``C`` sends the same seed, the same for every team and model, so two teams'
trials differ by their prompts, not by their luck.
"""

from __future__ import annotations

import enum
import hashlib
from dataclasses import dataclass

from podium.core.errors import ConfigError


class DiversityVector(enum.StrEnum):
    """Which per-trial vector the diversity stage compares."""

    SOFTMAX = "softmax"  # the 26 class probabilities, ordered A..Z
    CLS_EMBEDDING = "cls_embedding"  # the pre-LayerNorm CLS token of the ViT (768 floats)


class ResultFiles(enum.StrEnum):
    """Which version of the official scoring script's files ``result/`` holds."""

    TWO_FACTOR = "two-factor"  # 2023: ``trial_Score``, ``stabilityWeight``/``similarityWeight``
    THREE_FACTOR = "three-factor"  # 2024 on: ``trial_score``, ``weightStability``/.../``weightDiversity``


@dataclass(frozen=True, slots=True)
class GenerationRules:
    """One edition's request settings and per-trial limits (None: not sent, or no limit)."""

    default_model: str | None  # the model spec when none is given; None: each run names its models
    temperature: int | None
    seed: int | None
    sends_n: bool
    max_time_s: float | None
    token_limit: int | None
    http_timeout_s: float  # how long a request may wait for its answer, as the official client waits
    program_package: str | None  # the official package a program of this edition imports; None: prompts only
    master_seed: bool = False  # an operator may derive a seed per trial from a master seed (``trial_seed``)
    # the package's chat function and the name of its trial context class (2025's carries the model's name);
    # the stand-ins (``generation/stand_ins.py``) and ``inspect`` read them from here
    chat_function: str | None = None
    context_class: str = "TrialContext"

    @property
    def takes_programs(self) -> bool:
        """Whether a submission is a program (else a prompt the judge sends itself)."""
        return self.program_package is not None


@dataclass(frozen=True, slots=True)
class Edition:
    """The rules of one edition that podium's stages depend on."""

    year: int
    name: str  # the competition's name that year
    prefix: str  # the drop function's name in responses
    qualification: bool  # a script qualified the prompts before generation (``podium pcg qualify``)
    generation: GenerationRules
    classifier_model: str  # the official letter classifier (a Hugging Face hub id), for similarity
    diversity: DiversityVector | None  # None: the edition has no diversity factor
    result_files: ResultFiles
    models_summed: bool  # one scoring run per model, prompt scores summed before normalising
    winner_rule: bool  # the rules declare a winner, who must beat the zero-shot baseline (``rules/winner.py``)


LETTER_VIT = "pittawat/vit-base-uppercase-english-characters"

EDITIONS: dict[int, Edition] = {
    2023: Edition(
        2023, "ChatGPT4PCG", "ab_drop", qualification=True,
        generation=GenerationRules("openai:gpt-3.5-turbo", None, None, False, None, None, 600.0, None),
        classifier_model="pittawat/vit-base-letter", diversity=None, result_files=ResultFiles.TWO_FACTOR,
        models_summed=False, winner_rule=False,
    ),
    2024: Edition(
        2024, "ChatGPT4PCG 2", "drop_block", qualification=False,
        generation=GenerationRules("openai:gpt-3.5-turbo-0125", 1, 42, True, 120.0, 25_000, 60.0, "chatgpt4pcg",
                                   chat_function="chat_with_chatgpt"),
        classifier_model=LETTER_VIT, diversity=DiversityVector.SOFTMAX, result_files=ResultFiles.THREE_FACTOR,
        models_summed=False, winner_rule=False,
    ),
    2025: Edition(
        2025, "LLMs4PCG", "drop_block", qualification=False,
        generation=GenerationRules(None, 1, None, True, 500.0, 25_000, 600.0, "llms4pcg", master_seed=True,
                                   chat_function="chat_with_llm", context_class="ModelTrialContext"),
        classifier_model=LETTER_VIT, diversity=DiversityVector.CLS_EMBEDDING, result_files=ResultFiles.THREE_FACTOR,
        models_summed=True, winner_rule=True,
    ),
}  # fmt: skip
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


def edition_of_package(package: str) -> Edition | None:
    """The edition whose programs import the official package ``package`` (``chatgpt4pcg`` → 2024), if any."""
    return next((e for e in EDITIONS.values() if e.generation.program_package == package), None)


def official_packages() -> frozenset[str]:
    """The official packages programs import, one per edition that takes programs."""
    return frozenset(package_rules())


def package_rules() -> dict[str, GenerationRules]:
    """Each official package, with the generation rules of the edition whose programs import it."""
    return {e.generation.program_package: e.generation for e in EDITIONS.values() if e.generation.program_package}


def trial_seed(master_seed: int, character: str, number: int) -> int:
    """The seed of trial ``number`` of ``character`` under ``master_seed``: 31 bits of SHA-256("MASTER/C/n")."""
    digest = hashlib.sha256(f"{master_seed}/{character}/{number}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFF_FFFF


def _shown(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g} s"
    return f"`{value}`" if isinstance(value, str) else str(value)


def differences_table() -> str:
    """A Markdown table of every field of every edition, one row per field (``docs/design/pcg-editions.md``)."""
    editions = list(EDITIONS.values())
    fields: list[tuple[str, list[object]]] = [
        ("name", [e.name for e in editions]),
        ("drop function", [e.prefix for e in editions]),
        ("qualification script", [e.qualification for e in editions]),
        ("submission", ["program" if e.generation.takes_programs else "prompt" for e in editions]),
        ("official package", [e.generation.program_package for e in editions]),
        ("default model", [e.generation.default_model for e in editions]),
        ("temperature", [e.generation.temperature for e in editions]),
        ("seed", [e.generation.seed for e in editions]),
        ("master seed (opt-in)", [e.generation.master_seed for e in editions]),
        ("sends n", [e.generation.sends_n for e in editions]),
        ("time per trial", [e.generation.max_time_s for e in editions]),
        ("tokens per trial", [e.generation.token_limit for e in editions]),
        ("client timeout", [e.generation.http_timeout_s for e in editions]),
        ("classifier", [e.classifier_model for e in editions]),
        ("diversity vector", [None if e.diversity is None else e.diversity.value for e in editions]),
        ("result files", [e.result_files.value for e in editions]),
        ("models summed", [e.models_summed for e in editions]),
        ("winner rule", [e.winner_rule for e in editions]),
    ]
    lines = ["| rule | " + " | ".join(str(e.year) for e in editions) + " |"]
    lines.append("|---|" + "---|" * len(editions))
    lines += [f"| {name} | " + " | ".join(_shown(v) for v in values) + " |" for name, values in fields]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(differences_table(), end="")
