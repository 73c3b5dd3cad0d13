"""The one skeleton every stage driver uses: walk a competition root, log each item, skip what is current.

A stage runs on each official root (one per model in a multi-model root, ``layout.competition_roots``) through a
``StageRun``: it lists the teams by the official rule, walks ``<TEAM>/<folder>/<C>/`` in the official order,
logs one event per item (team, character, trial, verdict, reason) in the official log format, skips an output
whose input, settings and stage version are unchanged (``StageLedger``), deletes an old output whose input now
fails (so later stages never read a stale file), and never lets one bad item stop the run. Problems with the
layout itself (stray files, a missing stage folder, replaced bytes) become warnings. The run's events, warnings
and log files make its ``StageSummary``.

The stage modules beside this one (``qualify``, ``extract``, ``build``, ``simulate``, ``classify``,
``diversity``, ``score``) hold only what differs between stages; the per-item rule each calls has the same name
under ``rules/``. Each per-item stage describes itself as a ``Stage``; ``stages.PIPELINE`` lists them in order for
``pipeline.evaluate``, for the explanations of a missing folder and for the report. Each stage keys its
resumability ledger (by its name) with its own ``VERSION``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from podium.core.errors import InputError
from podium.core.execution.executor import Executor
from podium.core.records import StageFailure
from podium.core.storage.files import read_bytes, write_atomic
from podium.core.storage.state import StageLedger, content_key
from podium.tracks.pcg.classifiers import ClassifierSpec
from podium.tracks.pcg.competition import Competition
from podium.tracks.pcg.editions import TRIALS_PER_CHARACTER, Edition
from podium.tracks.pcg.handoff import ImageHandoff
from podium.tracks.pcg.official.rundir import Platform, base_name, list_team_dirs, list_visible_files
from podium.tracks.pcg.official.stagelog import ItemEvent, StageLog
from podium.tracks.pcg.official.text import decode_utf8
from podium.tracks.pcg.rules.physics import PhysicsParameters
from podium.tracks.pcg.thumbnails import ThumbnailCache
from podium.tracks.pcg.verdicts import PcgVerdict

ItemCallback = Callable[[ItemEvent], None]

_VERDICTS = frozenset(verdict.value for verdict in PcgVerdict)
TEAM_FOLDERS_FIX = "a competition root holds one folder per team, e.g. ROOT/<TEAM>/raw/<C>/<TEAM>_<C>_1.txt"


@dataclass(frozen=True, slots=True)
class TransformResult:
    """What a per-item transform made of one input: the output bytes or the item's failure, and warnings."""

    output: bytes | StageFailure
    warnings: tuple[str, ...] = ()  # problems that do not fail the item (replaced bytes, ...)


# A transform gets the input bytes and its path.
Transform = Callable[[bytes, Path], TransformResult]


@dataclass(frozen=True, slots=True)
class StageSummary:
    """What one stage run did, for the command line and the report."""

    stage: str
    events: tuple[ItemEvent, ...]
    warnings: tuple[str, ...]
    log_files: tuple[Path, ...]

    def count(self, verdict: str) -> int:
        """How many items ended with ``verdict``."""
        return sum(1 for event in self.events if event.verdict == verdict)

    @property
    def failures(self) -> tuple[ItemEvent, ...]:
        """The items that failed."""
        return tuple(event for event in self.events if event.failed)


@dataclass(frozen=True, slots=True)
class StageSettings:
    """How to run the stages: what every stage takes, and what only some use (the rest ignore it)."""

    force: bool = False  # redo every item, even outputs that are current
    on_item: ItemCallback | None = None
    executor: Executor | None = None  # simulate and classify spread their jobs over it (default: in process)
    classifier: ClassifierSpec | None = None  # classify (default: the embedded classifier)
    handoff: ImageHandoff | None = None  # simulate keeps each image's classifier input for classify
    thumbnails: ThumbnailCache | None = None  # simulate makes the report's thumbnails from the pictures in memory
    physics: PhysicsParameters | None = None  # simulate (default: the calibrated parameters)
    trials: int = TRIALS_PER_CHARACTER  # diversity's T


DEFAULT_SETTINGS = StageSettings()


def _why_no_responses(team_dir: Path) -> str:
    """``generate`` wrote nothing for the team: why, in its newest run's words where it recorded them."""
    from podium.tracks.pcg.run_outcomes import generation_failures

    failures = [why for (team, _, _), why in generation_failures(team_dir.parent / "logs").items()
                if team == team_dir.name]  # fmt: skip
    if failures:
        verdict, reason = failures[-1]
        return f"generate wrote no responses for it ({verdict}: {reason.splitlines()[0] if reason else ''})"
    return f"generate wrote no responses for it ({GENERATED}/ is empty: run generate, or see its log)"


@dataclass(frozen=True, slots=True)
class Stage:
    """One per-item stage of the pipeline: ``<TEAM>/<source>/`` → ``<TEAM>/<output>/`` for each output."""

    name: str
    source: str
    outputs: tuple[str, ...]
    run: Callable[[Competition, StageSettings], StageSummary]
    applies: Callable[[Edition], bool] = lambda edition: True  # diversity: only editions with the factor


GENERATED = "raw"  # the folder ``generate`` writes, where the pipeline starts


def why_no_folder(team_dir: Path, folder: str) -> str:
    """Why ``team_dir`` has no ``folder``: the first stage upstream that wrote nothing for it, and from what."""
    from podium.tracks.pcg.stages import PIPELINE  # the list holds every stage, and every stage imports this module

    writers = {output: stage for stage in PIPELINE for output in stage.outputs}
    wanted = folder
    while wanted in writers:
        stage = writers[wanted]
        if stage.source == GENERATED and not any(p.is_file() for p in (team_dir / GENERATED).rglob("*")):
            return _why_no_responses(team_dir)  # the stage that refused it is generate, not the one after
        if (team_dir / stage.source).is_dir():
            failed = f"each item failed, or {stage.name} has not run: see its log"
            return f"{stage.name} wrote no {wanted}/ from its {stage.source}/ ({failed})"
        wanted = stage.source
    writer = writers[folder].name if folder in writers else "generate" if folder == GENERATED else "its stage"
    return f"it has no {folder}/ folder (run {writer} first)"


@dataclass(frozen=True, slots=True)
class TeamFolder:
    """A team and one of its stage folders (``<TEAM>/<stage>``)."""

    team: str
    path: Path


@dataclass(frozen=True, slots=True)
class ReadInput:
    """An input file of a stage and its bytes."""

    path: Path
    data: bytes


@dataclass
class StageRun:
    """One stage on one official root: its log, its ledger (when it keeps one), and the walk over the layout."""

    root: Path
    stage: str
    platform: Platform
    log: StageLog
    ledger: StageLedger | None = None
    force: bool = False

    def teams(self, fix: str = TEAM_FOLDERS_FIX) -> list[str]:
        """The team folders of the root in the platform's order; an ``InputError`` when there is none."""
        teams = list_team_dirs(self.root, self.platform)
        if not teams:
            raise InputError("no team folders found", path=self.root, fix=fix)
        return teams

    def team_folders(self, folder: str) -> Iterator[TeamFolder]:
        """``<TEAM>/<folder>`` of every team that has it; a warning for each that has not.

        The warning names the stage that produced nothing, in the same words from every later stage, so that a run
        of all of them can say it once.
        """
        for team in self.teams():
            found = self.root / team / folder
            if found.is_dir():
                yield TeamFolder(team, found)
            else:
                self.warn(f"team {team}: nothing to do: {why_no_folder(self.root / team, folder)}")

    def item(self, event: ItemEvent) -> None:
        """Log one item's outcome."""
        self.log.item(event)

    def warn(self, message: str) -> None:
        """Log a problem that does not fail an item."""
        self.log.warn(message)

    def read(self, team: str, character: str, files: list[Path]) -> list[ReadInput]:
        """The bytes of ``files``; each one that cannot be read is logged as a failed item and left out."""
        contents = []
        for file in files:
            try:
                contents.append(ReadInput(file, read_bytes(file)))
            except InputError as error:
                self.item(ItemEvent(team, character, file.name, PcgVerdict.UNREADABLE_INPUT, error.describe()))
        return contents

    def is_current(self, output: Path, key: str) -> bool:
        """Whether ``output`` was made from exactly ``key`` and is on disk (never, with ``force``)."""
        return not self.force and self._ledger().recall(output, key) is not None

    def log_skipped(self, team: str, character: str, names: list[str]) -> None:
        """Log the items of a current group output (a character's stability or similarity file) as skipped."""
        for name in names:
            self.item(ItemEvent(team, character, name, PcgVerdict.SKIPPED))

    def record(self, output: Path, key: str, failure: tuple[str, str] | None = None) -> None:
        """Note in the ledger that ``output`` was written from ``key`` (or, with ``failure``, why it was not)."""
        self._ledger().record(output, key, failure)

    def judge_item(
        self,
        team: str,
        character: str,
        trial: str,
        input_path: Path,
        output: Path,
        version_key: str,
        transform: Transform,
        *,
        input_warnings: Callable[[bytes, Path], tuple[str, ...]] | None = None,
    ) -> ItemEvent:
        """Turn one input file into one output file with ``transform``, resumably; the outcome, to log.

        ``input_warnings`` finds problems of the input itself (bytes replaced in text that is not UTF-8); they are
        said on every run, the input skipped as current or not, so a rerun does not hide them.
        """
        ledger = self._ledger()
        try:
            data = read_bytes(input_path)
        except InputError as error:
            return ItemEvent(team, character, trial, PcgVerdict.UNREADABLE_INPUT, error.describe())
        for warning in input_warnings(data, input_path) if input_warnings is not None else ():
            self.warn(warning)
        key = content_key(version_key, data)
        if not self.force and (known := ledger.recall(output, key)) is not None:
            if known.failure is None:
                return ItemEvent(team, character, trial, PcgVerdict.SKIPPED)
            verdict, reason = known.failure
            if verdict in _VERDICTS:  # the same input fails the same way (a verdict since renamed is redone)
                return ItemEvent(team, character, trial, PcgVerdict(verdict), reason)
        result = transform(data, input_path)
        for warning in result.warnings:
            self.warn(warning)
        if isinstance(result.output, StageFailure):
            if output.exists():
                output.unlink()  # the old output came from an input that now fails: it must not be scored
            verdict = PcgVerdict(result.output.verdict)
            ledger.record(output, key, (verdict.value, result.output.reason))
            return ItemEvent(team, character, trial, verdict, result.output.reason)
        write_atomic(output, result.output)
        ledger.record(output, key)
        return ItemEvent(team, character, trial, PcgVerdict.OK)

    def _ledger(self) -> StageLedger:
        if self.ledger is None:
            raise RuntimeError(f"the {self.stage} stage keeps no ledger")
        return self.ledger

    def summary(self) -> StageSummary:
        """What this run did so far."""
        log_files = (self.log.path,) if self.log.path is not None else ()
        return StageSummary(self.stage, tuple(self.log.events), tuple(self.log.warnings), log_files)


@contextmanager
def stage_run(
    root: Path,
    stage: str,
    *,
    platform: Platform = Platform.POSIX,
    force: bool = False,
    on_item: ItemCallback | None = None,
    ledger: bool = True,
) -> Iterator[StageRun]:
    """Open ``stage``'s log (and, with ``ledger``, its resumability ledger) on one official root."""
    with StageLog(root, stage, on_item=on_item) as log:
        if not ledger:
            yield StageRun(root, stage, platform, log, None, force)
            return
        with StageLedger(root, stage) as kept:
            yield StageRun(root, stage, platform, log, kept, force)


def over_model_roots(
    competition: Competition, stage: str, body: Callable[[StageRun], None], settings: StageSettings
) -> StageSummary:
    """Run ``body`` on every official root of ``competition`` (its root, or one per model); merge the summaries."""
    summaries = []
    platform, force, on_item = competition.platform, settings.force, settings.on_item
    for model_root in competition.model_roots:
        with stage_run(model_root.path, stage, platform=platform, force=force, on_item=on_item) as run:
            body(run)
            summaries.append(run.summary())
    return StageSummary(
        stage,
        tuple(e for s in summaries for e in s.events),
        tuple(w for s in summaries for w in s.warnings),
        tuple(p for s in summaries for p in s.log_files),
    )


def character_dirs(folder: Path) -> list[Path]:
    """The visible sub-folders of ``folder`` (one per character), in name order."""
    return sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))


@dataclass(frozen=True, slots=True)
class TextStage:
    """A per-trial stage that turns each text file into one output file.

    ``<TEAM>/<source>/<C>/<file>`` → ``<TEAM>/<target>/<C>/<base>.<extension>``. Inputs are decoded as the official
    scripts do (UTF-8, bad bytes replaced, with a warning) and handed to ``convert`` with the edition (its function
    prefix decides the output).
    """

    name: str
    version: str  # bump when the output for the same input changes; outputs of older versions are redone
    source: str
    target: str
    extension: str
    convert: Callable[[str, Edition], bytes | StageFailure]

    @property
    def stage(self) -> Stage:
        """The entry of ``stages.PIPELINE`` for this stage."""
        return Stage(self.name, self.source, (self.target,), self.run)

    def run(self, competition: Competition, settings: StageSettings = DEFAULT_SETTINGS) -> StageSummary:
        """Run the stage for every team of the competition (every model's teams in a multi-model root)."""
        edition = competition.edition
        version_key = content_key(self.name, self.version, edition.prefix)

        def transform(data: bytes, path: Path) -> TransformResult:
            return TransformResult(self.convert(decode_utf8(data, path).text, edition))

        def replaced_bytes(data: bytes, path: Path) -> tuple[str, ...]:
            warning = decode_utf8(data, path).warning
            return (warning,) if warning else ()

        def body(run: StageRun) -> None:
            for folder in run.team_folders(self.source):
                for stray in list_visible_files(folder.path):
                    run.warn(
                        f"team {folder.team}: stray file {stray} ignored (inputs belong in {self.source}/<CHARACTER>/)"
                    )
                for char_dir in character_dirs(folder.path):
                    for input_path in list_visible_files(char_dir):
                        name = f"{base_name(input_path.name)}.{self.extension}"
                        output = run.root / folder.team / self.target / char_dir.name / name
                        event = run.judge_item(
                            folder.team,
                            char_dir.name,
                            input_path.name,
                            input_path,
                            output,
                            version_key,
                            transform,
                            input_warnings=replaced_bytes,
                        )
                        run.item(event)

        return over_model_roots(competition, self.name, body, settings)
