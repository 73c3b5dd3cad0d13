"""Build (``intermediate`` → ``levels``): drop the blocks on the 20×16 grid and write Science Birds XML."""

from __future__ import annotations

from podium.core.records import StageFailure
from podium.tracks.pcg.editions import Edition
from podium.tracks.pcg.official.levelxml import level_xml_text
from podium.tracks.pcg.rules.build import drop_blocks, parse_drop_calls
from podium.tracks.pcg.stages.driver import TextStage


def _built(text: str, edition: Edition) -> bytes | StageFailure:
    level = drop_blocks(parse_drop_calls(text, edition.prefix))
    return level if isinstance(level, StageFailure) else level_xml_text(level).encode("utf-8")


BUILD = TextStage("build", "1", source="intermediate", target="levels", extension="xml", convert=_built)

STAGE = BUILD.stage
run_build = BUILD.run  # ``intermediate`` → ``levels`` of every team: (competition, settings) → summary
