"""Stages over a competition root: walk the official layout, run one stage function per item, write outputs.

Every driver here logs one event per item (team, character, trial, verdict, reason) in the official log format,
skips outputs whose input, settings and stage version are unchanged (``StageLedger``), deletes an old output
whose input now fails (so later stages never read a stale file), and never lets one bad item stop the run.
Problems with the layout itself (stray files, a missing stage folder, replaced bytes) become warnings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from podium.core.errors import InputError
from podium.core.execution.executor import Executor, SerialExecutor
from podium.core.records import StageFailure
from podium.core.storage.files import parse_json, read_bytes, write_atomic
from podium.core.storage.state import StageLedger, content_key
from podium.tracks.pcg.build import drop_blocks, parse_drop_calls
from podium.tracks.pcg.classifiers import ClassifierSpec, LetterPrediction
from podium.tracks.pcg.classify import ClassifiedImage, ClassifyJob, classify_images, is_level_image, similarity_json
from podium.tracks.pcg.diversity import SimilarityFormatError, diversity_of
from podium.tracks.pcg.editions import CHARACTERS, TRIALS_PER_CHARACTER, DiversityVector, Edition
from podium.tracks.pcg.extract import extract_code
from podium.tracks.pcg.handoff import ImageHandoff
from podium.tracks.pcg.layout import competition_roots
from podium.tracks.pcg.levelxml import level_xml_text
from podium.tracks.pcg.official.rundir import Platform, base_name, list_team_dirs, list_visible_files
from podium.tracks.pcg.official.stagelog import ItemEvent, StageLog
from podium.tracks.pcg.official.text import decode_utf8
from podium.tracks.pcg.physics import PhysicsParameters
from podium.tracks.pcg.simulate import SimulationJob, StabilityRecord, simulate_level, stability_json
from podium.tracks.pcg.verdicts import PcgVerdict

# Bump a stage's version when its output for the same input changes; outputs of older versions are redone.
STAGE_VERSIONS = {"extract": "1", "build": "1", "diversity": "1", "simulate": "1", "classify": "1"}

ItemCallback = Callable[[ItemEvent], None]

# A transform gets the input bytes and its path, and returns the output bytes or the item's failure, plus
# warnings that do not fail the item.
Transform = Callable[[bytes, Path], tuple[bytes | StageFailure, list[str]]]


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


def _require_teams(root: Path, platform: Platform) -> list[str]:
    teams = list_team_dirs(root, platform)
    if not teams:
        raise InputError(
            "no team folders found",
            path=root,
            fix="a competition root holds one folder per team, e.g. ROOT/<TEAM>/raw/<C>/<TEAM>_<C>_1.txt",
        )
    return teams


def _run_trial_stage(
    root: Path,
    stage: str,
    source: str,
    target: str,
    extension: str,
    settings: str,
    transform: Transform,
    *,
    force: bool,
    platform: Platform,
    on_item: ItemCallback | None,
) -> StageSummary:
    """Run a per-trial stage (``<TEAM>/<source>/<C>/<file>`` → ``<TEAM>/<target>/<C>/<base>.<extension>``)."""
    version_key = content_key(stage, STAGE_VERSIONS[stage], settings)
    summaries = []
    for model_root in competition_roots(root, platform):
        path = model_root.path
        with StageLog(path, stage, on_item=on_item) as log, StageLedger(path, stage) as ledger:
            for team, source_dir in _team_folders(path, platform, source, log, "the stage that writes it"):
                for stray in list_visible_files(source_dir):
                    log.warn(f"team {team}: stray file {stray} ignored (inputs belong in {source}/<CHARACTER>/)")
                for char_dir in _character_dirs(source_dir):
                    for input_path in list_visible_files(char_dir):
                        output = path / team / target / char_dir.name / f"{base_name(input_path.name)}.{extension}"
                        event = _run_item(
                            team, char_dir.name, input_path, output, version_key, transform, ledger, log, force
                        )
                        log.item(event)
            summaries.append(StageSummary(stage, tuple(log.events), tuple(log.warnings), _log_paths(log)))
    return _merge(stage, summaries)


def _team_folders(
    root: Path, platform: Platform, folder: str, log: StageLog, writer: str
) -> Iterator[tuple[str, Path]]:
    """(team, ``<TEAM>/<folder>``) for every team that has the folder; a warning for each that has not."""
    for team in _require_teams(root, platform):
        found = root / team / folder
        if found.is_dir():
            yield team, found
        else:
            log.warn(f"team {team}: no {folder}/ folder, nothing to do (run {writer} first)")


def _character_dirs(folder: Path) -> list[Path]:
    """The visible sub-folders of ``folder`` (one per character), in name order."""
    return sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))


def _run_item(
    team: str,
    character: str,
    input_path: Path,
    output: Path,
    version_key: str,
    transform: Transform,
    ledger: StageLedger,
    log: StageLog,
    force: bool,
) -> ItemEvent:
    trial = input_path.name
    try:
        data = read_bytes(input_path)
    except InputError as error:
        return ItemEvent(team, character, trial, PcgVerdict.UNREADABLE_INPUT.value, error.describe())
    key = content_key(version_key, data)
    if not force and (known := ledger.recall(output, key)) is not None:
        if known.failure is None:
            return ItemEvent(team, character, trial, "skipped")
        return ItemEvent(team, character, trial, *known.failure)  # the same input fails the same way
    result, warnings = transform(data, input_path)
    for warning in warnings:
        log.warn(warning)
    if isinstance(result, StageFailure):
        if output.exists():
            output.unlink()  # the old output came from an input that now fails: it must not be scored
        ledger.record(output, key, (result.verdict.value, result.reason))
        return ItemEvent(team, character, trial, result.verdict.value, result.reason)
    write_atomic(output, result)
    ledger.record(output, key)
    return ItemEvent(team, character, trial, "ok")


def _log_paths(log: StageLog) -> tuple[Path, ...]:
    return (log.path,) if log.path is not None else ()


def _merge(stage: str, summaries: list[StageSummary]) -> StageSummary:
    return StageSummary(
        stage,
        tuple(e for s in summaries for e in s.events),
        tuple(w for s in summaries for w in s.warnings),
        tuple(p for s in summaries for p in s.log_files),
    )


def _text_transform(convert: Callable[[str], bytes | StageFailure]) -> Transform:
    """A transform that decodes its input as the official scripts do (UTF-8, bad bytes replaced) first."""

    def transform(data: bytes, path: Path) -> tuple[bytes | StageFailure, list[str]]:
        decoded = decode_utf8(data, path)
        return convert(decoded.text), [decoded.warning] if decoded.warning else []

    return transform


def _extracted(text: str, edition: Edition) -> bytes | StageFailure:
    result = extract_code(text, edition.prefix)
    return result if isinstance(result, StageFailure) else result.text.encode("utf-8")


def _built(text: str, edition: Edition) -> bytes | StageFailure:
    level = drop_blocks(parse_drop_calls(text, edition.prefix))
    return level if isinstance(level, StageFailure) else level_xml_text(level).encode("utf-8")


def run_extract(
    root: Path,
    edition: Edition,
    *,
    force: bool = False,
    platform: Platform = Platform.POSIX,
    on_item: ItemCallback | None = None,
) -> StageSummary:
    """``raw`` → ``intermediate`` for every team of ``root``."""
    transform = _text_transform(lambda text: _extracted(text, edition))
    return _run_trial_stage(
        root, "extract", "raw", "intermediate", "txt", edition.prefix, transform,
        force=force, platform=platform, on_item=on_item,
    )  # fmt: skip


def run_build(
    root: Path,
    edition: Edition,
    *,
    force: bool = False,
    platform: Platform = Platform.POSIX,
    on_item: ItemCallback | None = None,
) -> StageSummary:
    """``intermediate`` → ``levels`` for every team of ``root``."""
    transform = _text_transform(lambda text: _built(text, edition))
    return _run_trial_stage(
        root, "build", "intermediate", "levels", "xml", edition.prefix, transform,
        force=force, platform=platform, on_item=on_item,
    )  # fmt: skip


def run_diversity(
    root: Path,
    edition: Edition,
    *,
    trials: int = TRIALS_PER_CHARACTER,
    force: bool = False,
    platform: Platform = Platform.POSIX,
    on_item: ItemCallback | None = None,
) -> StageSummary:
    """``similarity/<C>.json`` → ``diversity/<C>.json`` for every team of ``root`` (2024+)."""
    if edition.diversity is None:
        raise InputError(
            f"the {edition.year} edition has no diversity stage", fix="pass --edition 2024 or --edition 2025"
        )
    kind = edition.diversity
    summaries = []
    for model_root in competition_roots(root, platform):
        path = model_root.path
        version_key = content_key("diversity", STAGE_VERSIONS["diversity"], kind.value, str(trials))
        with StageLog(path, "diversity", on_item=on_item) as log, StageLedger(path, "diversity") as ledger:
            for team, source_dir in _team_folders(path, platform, "similarity", log, "classify"):
                for input_path in list_visible_files(source_dir):
                    character = base_name(input_path.name)
                    output = path / team / "diversity" / f"{character}.json"
                    log.item(
                        _diversity_item(
                            team, character, input_path, output, version_key, kind, trials, ledger, log, force
                        )
                    )
            summaries.append(StageSummary("diversity", tuple(log.events), tuple(log.warnings), _log_paths(log)))
    return _merge("diversity", summaries)


def _diversity_item(
    team: str,
    character: str,
    input_path: Path,
    output: Path,
    version_key: str,
    kind: DiversityVector,
    trials: int,
    ledger: StageLedger,
    log: StageLog,
    force: bool,
) -> ItemEvent:
    def transform(data: bytes, path: Path) -> tuple[bytes | StageFailure, list[str]]:
        try:
            result = diversity_of(parse_json(data, path), kind, trials)
        except InputError as error:
            return StageFailure(PcgVerdict.MALFORMED_INPUT, error.message), []
        except SimilarityFormatError as error:
            return StageFailure(PcgVerdict.MALFORMED_INPUT, str(error)), []
        return result.json_text().encode("utf-8"), list(result.warnings)

    event = _run_item(team, character, input_path, output, version_key, transform, ledger, log, force)
    return ItemEvent(team, character, "-", event.verdict, event.reason)


def run_simulate(
    root: Path,
    params: PhysicsParameters | None = None,
    *,
    executor: Executor | None = None,
    force: bool = False,
    platform: Platform = Platform.POSIX,
    on_item: ItemCallback | None = None,
    handoff: ImageHandoff | None = None,
) -> StageSummary:
    """``levels/<C>/*.xml`` → ``stability/<C>.json`` and ``images/<C>/*.png`` for every team of ``root``.

    The unit of resumability is a character folder (its stability file covers all its levels); the unit of work
    is one level, spread over ``executor``. With ``handoff``, each rendered image's classifier input is kept there.
    """
    params = params or PhysicsParameters()
    executor = executor or SerialExecutor()
    version_key = content_key("simulate", STAGE_VERSIONS["simulate"], repr(params))
    make_input = None if handoff is None else handoff.make_input
    summaries = []
    for model_root in competition_roots(root, platform):
        path = model_root.path
        with StageLog(path, "simulate", on_item=on_item) as log, StageLedger(path, "simulate") as ledger:
            groups: dict[tuple[str, str], list[Path]] = {}
            for team, levels_dir in _team_folders(path, platform, "levels", log, "build"):
                for char_dir in _character_dirs(levels_dir):
                    files = [f for f in list_visible_files(char_dir) if f.suffix.lower() == ".xml"]
                    if files:
                        groups[(team, char_dir.name)] = files
            jobs: list[SimulationJob] = []
            pending: dict[tuple[str, str], tuple[str, int]] = {}  # group -> (key, levels left)
            for (team, char), files in groups.items():
                contents = []
                for file in files:
                    try:
                        contents.append((file, read_bytes(file)))
                    except InputError as error:
                        log.item(ItemEvent(team, char, file.name, PcgVerdict.UNREADABLE_INPUT.value, error.describe()))
                key = content_key(version_key, *(f"{f.name}\0".encode() + data for f, data in contents))
                stability_path = path / team / "stability" / f"{char}.json"
                images = [path / team / "images" / char / f"{base_name(f.name)}.png" for f, _ in contents]
                if not force and ledger.recall(stability_path, key) is not None and all(i.exists() for i in images):
                    for file, _ in contents:
                        log.item(ItemEvent(team, char, file.name, "skipped"))
                    continue
                pending[(team, char)] = (key, len(contents))
                for (file, data), image in zip(contents, images, strict=True):
                    tag = "\\".join((path.name, team, "levels", char, file.name))
                    jobs.append(SimulationJob(tag, data, image, params, make_input))
            results: dict[tuple[str, str], list[tuple[str, StabilityRecord | StageFailure]]] = {}
            for job, simulated in executor.map_unordered(simulate_level, jobs):
                _, team, _, char, name = job.tag.split("\\")
                results.setdefault((team, char), []).append((name, simulated.outcome))
                if handoff is not None and simulated.rendered is not None:
                    handoff.keep(simulated.rendered)
                key, left = pending[(team, char)]
                if left > 1:
                    pending[(team, char)] = (key, left - 1)
                    continue
                del pending[(team, char)]
                _finish_character(path, team, char, key, results.pop((team, char)), log, ledger)
            summaries.append(StageSummary("simulate", tuple(log.events), tuple(log.warnings), _log_paths(log)))
    return _merge("simulate", summaries)


def _finish_character(
    root: Path,
    team: str,
    char: str,
    key: str,
    outcomes: list[tuple[str, StabilityRecord | StageFailure]],
    log: StageLog,
    ledger: StageLedger,
) -> None:
    """Write one character's stability file once all its levels are done, and log each level."""
    records = []
    for name, outcome in sorted(outcomes, key=lambda item: item[0].encode()):  # Directory.GetFiles order
        if isinstance(outcome, StageFailure):
            image = root / team / "images" / char / f"{base_name(name)}.png"
            if outcome.verdict is PcgVerdict.MALFORMED_INPUT and image.exists():
                image.unlink()  # from an older version of this level: it must not be classified
            log.item(ItemEvent(team, char, name, outcome.verdict.value, outcome.reason))
        else:
            records.append(outcome)
            log.item(ItemEvent(team, char, name, "ok", f"score {outcome.score} after {outcome.runs} run(s)"))
    stability_path = root / team / "stability" / f"{char}.json"
    write_atomic(stability_path, stability_json(records).encode("utf-8"))
    ledger.record(stability_path, key)


def run_classify(
    root: Path,
    classifier: ClassifierSpec,
    edition: Edition,
    *,
    executor: Executor | None = None,
    force: bool = False,
    platform: Platform = Platform.POSIX,
    on_item: ItemCallback | None = None,
    handoff: ImageHandoff | None = None,
) -> StageSummary:
    """``images/<C>/*.png`` → ``similarity/<C>.json`` for every team of ``root`` (one file per character).

    The unit of resumability and of work is a character folder, spread over ``executor``; each worker process
    loads the classifier once. Images whose input ``handoff`` kept (simulate in the same run) are not decoded.
    """
    executor = executor or SerialExecutor()
    with_embedding = edition.diversity is DiversityVector.CLS_EMBEDDING
    version_key = content_key("classify", STAGE_VERSIONS["classify"], classifier.identity(), str(with_embedding))
    summaries = []
    for model_root in competition_roots(root, platform):
        path = model_root.path
        with StageLog(path, "classify", on_item=on_item) as log, StageLedger(path, "classify") as ledger:
            # planned lazily: the executor starts on the first folder while later ones are still being read
            jobs = _classify_jobs(path, platform, classifier, version_key, log, ledger, force, handoff)
            for job, outcomes in executor.map_unordered(classify_images, jobs):
                _finish_classify(path, job, outcomes, with_embedding, log, ledger)
            summaries.append(StageSummary("classify", tuple(log.events), tuple(log.warnings), _log_paths(log)))
    return _merge("classify", summaries)


def _classify_jobs(
    root: Path,
    platform: Platform,
    classifier: ClassifierSpec,
    version_key: str,
    log: StageLog,
    ledger: StageLedger,
    force: bool,
    handoff: ImageHandoff | None,
) -> Iterator[ClassifyJob]:
    """One job per character folder that needs classifying."""
    for team, images_dir in _team_folders(root, platform, "images", log, "simulate"):
        for char_dir in _character_dirs(images_dir):
            if char_dir.name not in CHARACTERS:
                log.warn(f"team {team}: {char_dir} is not named after a letter A..Z; skipped")
                continue
            files = [f for f in list_visible_files(char_dir) if is_level_image(f.name)]
            job = _classify_job(root, team, char_dir.name, files, classifier, version_key, log, ledger, force, handoff)
            if job is not None:
                yield job


def _classify_job(
    root: Path,
    team: str,
    char: str,
    files: list[Path],
    classifier: ClassifierSpec,
    version_key: str,
    log: StageLog,
    ledger: StageLedger,
    force: bool,
    handoff: ImageHandoff | None,
) -> ClassifyJob | None:
    """The job for one character folder, or None when its similarity file is current.

    The job carries the bytes read here for the key, as simulation jobs do: read once, and a worker on another
    machine needs no access to the competition folder. An image ``handoff`` kept the input of goes as that input.
    """
    contents = []
    for file in files:
        try:
            contents.append((file.name, read_bytes(file)))
        except InputError as error:
            log.item(ItemEvent(team, char, file.name, PcgVerdict.UNREADABLE_INPUT.value, error.describe()))
    output = root / team / "similarity" / f"{char}.json"
    key = content_key(version_key, *(f"{name}\0".encode() + data for name, data in contents))
    if not force and ledger.recall(output, key) is not None:
        for name, _ in contents:
            log.item(ItemEvent(team, char, name, "skipped"))
        return None
    images = contents if handoff is None else [(name, handoff.input_or_bytes(data)) for name, data in contents]
    return ClassifyJob(team, char, tuple(images), classifier, key)


def _finish_classify(
    root: Path,
    job: ClassifyJob,
    outcomes: list[tuple[str, LetterPrediction | StageFailure]],
    with_embedding: bool,
    log: StageLog,
    ledger: StageLedger,
) -> None:
    """Log each image of a character folder and write its similarity file."""
    classified = []
    for name, outcome in outcomes:
        if isinstance(outcome, StageFailure):
            log.item(ItemEvent(job.team, job.char, name, outcome.verdict.value, outcome.reason))
            continue
        classified.append(ClassifiedImage(name, outcome))
        probability = outcome.probabilities[CHARACTERS.index(job.char)]
        log.item(ItemEvent(job.team, job.char, name, "ok", f"similarity {probability:.4f}"))
    output = root / job.team / "similarity" / f"{job.char}.json"
    write_atomic(output, similarity_json(job.char, classified, with_embedding).encode("utf-8"))
    ledger.record(output, job.ledger_key)
