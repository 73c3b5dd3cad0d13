"""Extract (``raw`` → ``intermediate``): the drop calls of each response's last fenced code block."""

from __future__ import annotations

from podium.core.records import StageFailure
from podium.tracks.pcg.editions import Edition
from podium.tracks.pcg.rules.extract import extract_code
from podium.tracks.pcg.stages.driver import TextStage


def _extracted(text: str, edition: Edition) -> bytes | StageFailure:
    result = extract_code(text, edition.prefix)
    return result if isinstance(result, StageFailure) else result.text.encode("utf-8")


EXTRACT = TextStage("extract", "1", source="raw", target="intermediate", extension="txt", convert=_extracted)

STAGE = EXTRACT.stage
run_extract = EXTRACT.run  # ``raw`` → ``intermediate`` of every team: (competition, settings) → summary
