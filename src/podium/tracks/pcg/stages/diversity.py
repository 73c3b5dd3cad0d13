"""Diversity (``similarity/<C>.json`` → ``diversity/<C>.json``): mean distance between a character's trials."""

from __future__ import annotations

from pathlib import Path

from podium.core.errors import InputError
from podium.core.records import StageFailure
from podium.core.storage.files import parse_json
from podium.core.storage.state import content_key
from podium.tracks.pcg.competition import Competition
from podium.tracks.pcg.official.rundir import base_name, list_visible_files
from podium.tracks.pcg.rules.diversity import SimilarityFormatError, diversity_of
from podium.tracks.pcg.stages.driver import (
    DEFAULT_SETTINGS,
    Stage,
    StageRun,
    StageSettings,
    StageSummary,
    TransformResult,
    over_model_roots,
)
from podium.tracks.pcg.verdicts import PcgVerdict

NAME = "diversity"
VERSION = "1"  # bump when the output for the same input changes; outputs of older versions are redone


def run_diversity(competition: Competition, settings: StageSettings = DEFAULT_SETTINGS) -> StageSummary:
    """``similarity/<C>.json`` → ``diversity/<C>.json`` for every team (editions with a diversity factor)."""
    edition, trials = competition.edition, settings.trials
    if edition.diversity is None:
        raise InputError(f"the {edition.year} edition has no diversity stage", fix="pass an --edition that has one")
    kind = edition.diversity
    version_key = content_key(NAME, VERSION, kind.value, str(trials))

    def transform(data: bytes, path: Path) -> TransformResult:
        try:
            result = diversity_of(parse_json(data, path), kind, trials)
        except InputError as error:
            return TransformResult(StageFailure(PcgVerdict.MALFORMED_INPUT, error.message))
        except SimilarityFormatError as error:
            return TransformResult(StageFailure(PcgVerdict.MALFORMED_INPUT, str(error)))
        return TransformResult(result.json_text().encode("utf-8"), tuple(result.warnings))

    def body(run: StageRun) -> None:
        for folder in run.team_folders("similarity"):
            for input_path in list_visible_files(folder.path):
                character = base_name(input_path.name)
                output = run.root / folder.team / "diversity" / f"{character}.json"
                run.item(run.judge_item(folder.team, character, "-", input_path, output, version_key, transform))

    return over_model_roots(competition, NAME, body, settings)


STAGE = Stage(NAME, "similarity", ("diversity",), run_diversity, lambda edition: edition.diversity is not None)
