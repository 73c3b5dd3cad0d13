"""What each edition's official generation code sends and enforces, in one record per edition.

2023 (the Node response-gathering script): one user message, ``gpt-3.5-turbo``, nothing else sent, no per-trial
limits. 2024 (``chatgpt4pcg`` 1.2.2): ``gpt-3.5-turbo-0125``, temperature 1, seed 42, the program's ``n``; before
each call the trial's wall time must not exceed 120 s, after each call its total tokens must not exceed 25,000;
the OpenAI client's timeout is 60 s. 2025 (``llms4pcg`` 2.0.1): the organisers' model, temperature 1, no seed
(the line is commented out), 500 s, 25,000 tokens; it sets no timeout of its own, so the OpenAI client's defaults
hold: 600 s to answer, 5 s to connect, 2 retries (podium's ``RetryPolicy`` defaults, ``podium.core.llm.http``).

2025's final run used "a master seed from which a unique per-trial seed is derived", without publishing how. An
operator may opt in with ``--master-seed``; podium's derivation is ``trial_seed`` below (documented, stable):
every call of trial ``n`` of letter ``C`` sends the same seed, the same for every team and model, so two teams'
trials differ by their prompts, not by their luck.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from podium.core.errors import ConfigError


@dataclass(frozen=True, slots=True)
class GenerationRules:
    """One edition's request settings and per-trial limits (None: not sent, or no limit)."""

    edition: int
    default_model: str | None  # the model spec when none is given; 2025 names its models per run
    temperature: int | None
    seed: int | None
    sends_n: bool
    max_time_s: float | None
    token_limit: int | None
    http_timeout_s: float  # how long a request may wait for its answer, as the official client waits
    program_package: str | None  # the official package a program of this edition imports; None: prompts only


RULES: dict[int, GenerationRules] = {
    2023: GenerationRules(2023, "openai:gpt-3.5-turbo", None, None, False, None, None, 600.0, None),
    2024: GenerationRules(2024, "openai:gpt-3.5-turbo-0125", 1, 42, True, 120.0, 25_000, 60.0, "chatgpt4pcg"),
    2025: GenerationRules(2025, None, 1, None, True, 500.0, 25_000, 600.0, "llms4pcg"),
}


def rules(edition: int) -> GenerationRules:
    """The rules of ``edition``."""
    try:
        return RULES[edition]
    except KeyError:
        raise ConfigError(f"no generation rules for edition {edition}", fix="use 2023, 2024 or 2025") from None


def trial_seed(master_seed: int, character: str, number: int) -> int:
    """The seed of trial ``number`` of ``character`` under ``master_seed``: 31 bits of SHA-256("MASTER/C/n")."""
    digest = hashlib.sha256(f"{master_seed}/{character}/{number}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFF_FFFF
