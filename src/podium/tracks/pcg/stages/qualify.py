"""Qualify (``<TEAM>.txt`` prompts, 2023): at most 900 words, allowed characters, an ``<OBJECT>`` token.

Only the 2023 edition had a qualification script; 2024 and 2025 inspected programs by hand. The log goes to
``<PROMPTS_DIR>/../logs/qualification_log_<time>.txt`` as the official script writes it, and qualified prompts are
copied to ``<PROMPTS_DIR>/../qualified/``.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from podium.core.errors import InputError
from podium.core.storage.files import read_bytes
from podium.tracks.pcg.official.rundir import base_name, list_visible_files
from podium.tracks.pcg.official.text import decode_utf8
from podium.tracks.pcg.rules.qualify import Qualification, qualify_prompt
from podium.tracks.pcg.stages.driver import stage_run

STAGE = "qualification"  # the official log's name


@dataclass(frozen=True, slots=True)
class QualifyRun:
    """The verdict on every prompt, problems that failed no prompt, and where qualified prompts were copied."""

    results: tuple[Qualification, ...]
    warnings: tuple[str, ...]
    qualified_dir: Path


def run_qualify(prompts_dir: Path, *, copy: bool = True) -> QualifyRun:
    """Check every ``<TEAM>.txt`` of ``prompts_dir``; with ``copy``, copy the qualified ones beside it."""
    if not prompts_dir.is_dir():
        raise InputError("prompt folder not found", path=prompts_dir, fix="pass the folder holding <TEAM>.txt files")
    files = list_visible_files(prompts_dir)
    if not files:
        raise InputError("no prompt files", path=prompts_dir, fix="put one <TEAM>.txt file per team in it")
    results: list[Qualification] = []
    warnings: list[str] = []
    qualified_dir = prompts_dir.resolve().parent / "qualified"
    with stage_run(prompts_dir.resolve().parent, STAGE, ledger=False) as run:
        for path in files:
            team = base_name(path.name)
            try:
                decoded = decode_utf8(read_bytes(path), path)
            except InputError as error:
                warnings.append(error.describe())
                continue
            if decoded.warning:
                warnings.append(decoded.warning)
            result = qualify_prompt(team, decoded.text)
            results.append(result)
            outcome = "Succeed" if result.qualified else f"Failed - {result.failure}"
            run.log.write(f"team: {team} - words: {result.words} - {outcome}")
            if result.qualified and copy:
                qualified_dir.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, qualified_dir / path.name)
    return QualifyRun(tuple(results), tuple(warnings), qualified_dir)
