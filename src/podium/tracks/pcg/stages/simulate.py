"""Simulate (``levels/<C>/*.xml`` → ``stability/<C>.json`` and ``images/<C>/*.png``): physics and the image.

The unit of resumability is a character folder (its stability file covers all its levels); the unit of work is
one distinct level (``rules.simulate.simulate_level``; a level repeated across trials is simulated once and its
image written to each of its paths), spread over an executor. With an image handoff, each rendered image's
classifier input is kept for classify in the same run (``handoff.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from podium.core.execution.executor import SerialExecutor
from podium.core.records import StageFailure
from podium.core.storage.files import write_atomic
from podium.core.storage.state import content_key
from podium.tracks.pcg.competition import Competition
from podium.tracks.pcg.official.rundir import base_name, list_visible_files
from podium.tracks.pcg.official.stagelog import ItemEvent
from podium.tracks.pcg.rules.physics import PhysicsParameters
from podium.tracks.pcg.rules.simulate import (
    SimulatedLevel,
    SimulationJob,
    StabilityRecord,
    simulate_level,
    stability_json,
)
from podium.tracks.pcg.stages.driver import (
    DEFAULT_SETTINGS,
    Stage,
    StageRun,
    StageSettings,
    StageSummary,
    character_dirs,
    over_model_roots,
)
from podium.tracks.pcg.verdicts import PcgVerdict

NAME = "simulate"
VERSION = "2"  # bump when the output for the same input changes; outputs of older versions are redone
# 2: blocks take damage (version 1 never applied it; docs/design/physics.md, "The damage bug")


@dataclass(frozen=True, slots=True)
class CharacterFolder:
    """One team's levels of one character: the group a stability file covers."""

    team: str
    char: str


@dataclass(frozen=True, slots=True)
class PendingCharacter:
    """A character folder whose levels are being simulated: its ledger key and how many levels are still out."""

    key: str
    left: int


@dataclass(frozen=True, slots=True)
class LevelOrigin:
    """Where a simulation job's level came from."""

    group: CharacterFolder
    name: str


@dataclass(frozen=True, slots=True)
class LevelOutcome:
    """One level's file name and its stability record, or why it has none."""

    name: str
    outcome: StabilityRecord | StageFailure


def run_simulate(competition: Competition, settings: StageSettings = DEFAULT_SETTINGS) -> StageSummary:
    """``levels/<C>/*.xml`` → ``stability/<C>.json`` and ``images/<C>/*.png`` for every team.

    With ``settings.thumbnails`` (``evaluate`` passes the report's cache), each image's thumbnail is made from the
    picture in memory and remembered, so the report decodes no PNG this run rendered.
    """
    params = settings.physics or PhysicsParameters()
    chosen_executor = settings.executor or SerialExecutor()
    handoff, thumbnails = settings.handoff, settings.thumbnails
    version_key = content_key(NAME, VERSION, repr(params))
    make_input = None if handoff is None else handoff.make_input
    classifier = None if handoff is None else handoff.classifier

    def body(run: StageRun) -> None:
        path = run.root
        groups: dict[CharacterFolder, list[Path]] = {}
        for folder in run.team_folders("levels"):
            for char_dir in character_dirs(folder.path):
                files = [f for f in list_visible_files(char_dir) if f.suffix.lower() == ".xml"]
                if files:
                    groups[CharacterFolder(folder.team, char_dir.name)] = files
        # One job per distinct level: the physics, the image and its inputs depend on the level's bytes alone, and
        # competitions repeat levels (half of the benchmark's letters, 24 of the 150 real 2023 levels).
        jobs: dict[bytes, SimulationJob] = {}
        copies: dict[str, list[str]] = {}  # a job's tag → the tags of every level it stands for, its own first
        origin: dict[str, LevelOrigin] = {}  # by tag: a name may hold any character, so the tag is never split
        pending: dict[CharacterFolder, PendingCharacter] = {}
        for group, files in groups.items():
            team, char = group.team, group.char
            contents = run.read(team, char, files)
            key = content_key(version_key, *(f"{c.path.name}\0".encode() + c.data for c in contents))
            stability_path = path / team / "stability" / f"{char}.json"
            images = [path / team / "images" / char / f"{base_name(c.path.name)}.png" for c in contents]
            if run.is_current(stability_path, key) and all(i.exists() for i in images):
                run.log_skipped(team, char, [c.path.name for c in contents])
                continue
            pending[group] = PendingCharacter(key, len(contents))
            for content, image in zip(contents, images, strict=True):
                tag = "\\".join((path.name, team, "levels", char, content.path.name))
                origin[tag] = LevelOrigin(group, content.path.name)
                same = jobs.get(content.data)
                if same is None:
                    jobs[content.data] = SimulationJob(
                        tag, content.data, (image,), params, make_input, thumbnails is not None, classifier
                    )
                    copies[tag] = [tag]
                else:
                    jobs[content.data] = replace(same, image_paths=(*same.image_paths, image))
                    copies[same.tag].append(tag)
        results: dict[CharacterFolder, list[LevelOutcome]] = {}
        made: dict[str, bytes] = {}

        def collect(job: SimulationJob, simulated: SimulatedLevel) -> None:
            """Take one distinct level's outcome for every level file it stands for; finish complete characters."""
            if handoff is not None and simulated.rendered is not None:
                handoff.keep(simulated.rendered)
            if simulated.thumbnail is not None:
                made[simulated.thumbnail[0]] = simulated.thumbnail[1]
            for tag in copies[job.tag]:
                group, name = origin[tag].group, origin[tag].name
                outcome = simulated.outcome
                if isinstance(outcome, StabilityRecord) and tag != job.tag:
                    outcome = replace(outcome, tag=tag)
                results.setdefault(group, []).append(LevelOutcome(name, outcome))
                waiting = pending[group]
                if waiting.left > 1:
                    pending[group] = PendingCharacter(waiting.key, waiting.left - 1)
                    continue
                del pending[group]
                _finish_character(run, group, waiting.key, results.pop(group))

        for job, simulated in chosen_executor.map_unordered(simulate_level, list(jobs.values())):
            collect(job, simulated)
        if thumbnails is not None:
            thumbnails.add(made)  # once: a killed run loses only thumbnails, which the report makes again

    return over_model_roots(competition, NAME, body, settings)


def _finish_character(run: StageRun, group: CharacterFolder, key: str, outcomes: list[LevelOutcome]) -> None:
    """Write one character's stability file once all its levels are done, and log each level."""
    team, char = group.team, group.char
    records = []
    for level in sorted(outcomes, key=lambda item: item.name.encode()):  # Directory.GetFiles order
        outcome = level.outcome
        if isinstance(outcome, StageFailure):
            image = run.root / team / "images" / char / f"{base_name(level.name)}.png"
            if outcome.verdict is PcgVerdict.MALFORMED_INPUT and image.exists():
                image.unlink()  # from an older version of this level: it must not be classified
            run.item(ItemEvent(team, char, level.name, PcgVerdict(outcome.verdict), outcome.reason))
            # kept under the level's path with the character's key, so a report can tell why from the disk alone
            run.record(run.root / team / "levels" / char / level.name, key, (outcome.verdict, outcome.reason))
        else:
            records.append(outcome)
            reason = f"score {outcome.score} after {outcome.runs} run(s)"
            run.item(ItemEvent(team, char, level.name, PcgVerdict.OK, reason))
    stability_path = run.root / team / "stability" / f"{char}.json"
    write_atomic(stability_path, stability_json(records).encode("utf-8"))
    run.record(stability_path, key)


STAGE = Stage(NAME, "levels", ("stability", "images"), run_simulate)
