"""Evaluate (``podium pcg evaluate``): every stage from what exists to ``result/``, resumable, then the report.

The stages of ``stages.PIPELINE`` run in order on each official root of the ``Competition`` (one per model in a
multi-model root): extract, build, simulate, classify, diversity (editions that have it), then score over the whole
competition and the report. A stage runs only
when some team has its input folder, so a competition can enter anywhere (responses, levels or images). Every
stage skips what is current, so a run killed at any point and started again ends with the same result files as
an uninterrupted run. With the embedded classifier, simulate hands its rendered images to classify in memory
(``handoff.py``), which then decodes only the PNGs this run did not render.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from podium.core.errors import PodiumError
from podium.core.execution.executor import Executor, SerialExecutor
from podium.core.storage.state import STATE_FOLDER
from podium.tracks.pcg.bootstrap import normalized_uncertainty
from podium.tracks.pcg.classifiers import ClassifierSpec
from podium.tracks.pcg.competition import Competition
from podium.tracks.pcg.folders import CHARACTER_FILE_FOLDERS, TRIAL_FOLDERS
from podium.tracks.pcg.handoff import ImageHandoff
from podium.tracks.pcg.official.rundir import list_team_dirs, list_visible_files
from podium.tracks.pcg.official.stagelog import ItemEvent
from podium.tracks.pcg.provenance import ProgramEnvironment, program_environments, run_provenance
from podium.tracks.pcg.report import ReportInput, render_report, write_report
from podium.tracks.pcg.rules.classify import is_level_image
from podium.tracks.pcg.run_outcomes import generation_failures
from podium.tracks.pcg.run_plan import AskedTrials, asked_trials, describe_generation, generation_facts
from podium.tracks.pcg.stages import PIPELINE
from podium.tracks.pcg.stages.driver import Stage, StageSettings, StageSummary
from podium.tracks.pcg.stages.score import ScoreOptions, run_score
from podium.tracks.pcg.standings import ScoreRun
from podium.tracks.pcg.thumbnails import ThumbnailCache, make_thumbnails
from podium.tracks.pcg.trial_status import TrialKey, TrialStatus, trial_key, trial_statuses
from podium.tracks.pcg.verdicts import PcgVerdict


@dataclass
class StageReport:
    """How one stage went in this run."""

    stage: str
    model: str
    summary: StageSummary
    seconds: float


@dataclass
class Evaluation:
    """Everything one ``evaluate`` run did."""

    stages: list[StageReport] = field(default_factory=list)
    score: ScoreRun | None = None
    report_path: Path | None = None
    asked: dict[str, AskedTrials] = field(default_factory=dict)  # by team, where generate recorded its plan


def _has_input(root: Path, stage: Stage, competition: Competition) -> bool:
    return any((root / team / stage.source).is_dir() for team in list_team_dirs(root, competition.platform))


def evaluate(
    competition: Competition,
    classifier: ClassifierSpec,
    *,
    executor: Executor | None = None,
    options: ScoreOptions | None = None,
    force: bool = False,
    on_item: Callable[[str, ItemEvent], None] | None = None,
) -> Evaluation:
    """Run every stage that has input, score, and write ``result/report.html``."""
    executor = executor or SerialExecutor()
    evaluation = Evaluation()
    stages = [stage for stage in PIPELINE if stage.applies(competition.edition)]
    make_input = classifier.input_maker()
    thumbnails = ThumbnailCache(thumbnail_cache_path(competition.root))  # simulate fills it; the report reads it
    for model_root in competition.model_roots:
        path, model = model_root.path, model_root.model or ""
        one_root = replace(competition, model_roots=(model_root,))
        # one model root's images at a time; the workers that render an image also classify it, while they hold it
        handoff = None if make_input is None else ImageHandoff(make_input, classifier)
        previous: StageSummary | None = None
        for stage in stages:
            if not _has_input(path, stage, competition):
                _require_handover(previous, stage, path)
                continue
            settings = StageSettings(
                force=force, on_item=None if on_item is None else _tagged(on_item, stage.name), executor=executor,
                classifier=classifier, handoff=handoff, thumbnails=thumbnails,
            )  # fmt: skip
            started = time.perf_counter()
            summary = stage.run(one_root, settings)
            if not summary.events and not any(path.glob(f"*/{stage.source}/*/*")):
                _require_handover(previous, stage, path)  # no item, and no input file either
            evaluation.stages.append(StageReport(stage.name, model, summary, time.perf_counter() - started))
            previous = summary
    evaluation.score = run_score(competition, options)
    evaluation.asked = competition_asked(competition)
    evaluation.report_path = write_evaluation_report(
        competition, evaluation.score, classifier, executor, thumbnails=thumbnails, asked=evaluation.asked
    )
    return evaluation


def competition_asked(competition: Competition) -> dict[str, AskedTrials]:
    """What ``generate`` asked of each team, over every model root (teams named ``MODEL/TEAM`` there)."""
    asked: dict[str, AskedTrials] = {}
    for model_root in competition.model_roots:
        asked |= asked_trials(model_root.path / "logs", f"{model_root.model}/" if model_root.model else "")
    return asked


def _require_handover(previous: StageSummary | None, stage: Stage, root: Path) -> None:
    """Fail when the stage before wrote outputs and ``stage`` finds none of them where they belong."""
    if previous is None:
        return
    written = previous.count(PcgVerdict.OK) + previous.count(PcgVerdict.SKIPPED)
    if written:
        raise PodiumError(
            f"{previous.stage} reported {written} outputs, but {stage.name} finds no input under {root}/<TEAM>/"
            f"{stage.source}/: they were written somewhere else",
            fix="run the workers where they see the competition root at the same absolute path (a shared file "
            "system), or use the local pool (--workers N)",
        )


def _tagged(on_item: Callable[[str, ItemEvent], None], stage: str) -> Callable[[ItemEvent], None]:
    return lambda event: on_item(stage, event)


def thumbnail_cache_path(root: Path) -> Path:
    """Where a competition root keeps its report's thumbnails (by source digest, so any stage may add to it)."""
    return root / STATE_FOLDER / "thumbnails.jsonl"


def write_evaluation_report(
    competition: Competition,
    run: ScoreRun,
    classifier: ClassifierSpec,
    executor: Executor,
    *,
    thumbnails: ThumbnailCache | None = None,
    asked: dict[str, AskedTrials] | None = None,
) -> Path:
    """The report from the files alone, so a rerun or a resumed run writes the same page as an uninterrupted one.

    ``thumbnails`` and ``asked``: what the caller already loaded from the same files (``evaluate`` holds both).
    """
    images: dict[TrialKey, Path] = {}
    statuses: dict[TrialKey, TrialStatus] = {}
    letters: set[str] = set()
    classified = simulated = False
    programs: list[ProgramEnvironment] = []
    found: set[str] = set()
    facts: dict[str, dict[str, str]] = {}
    failures: dict[tuple[str, str, str], tuple[str, str]] = {}
    for model_root in competition.model_roots:
        prefix = f"{model_root.model}/" if model_root.model else ""
        programs += program_environments(model_root.path / "logs", prefix)
        facts |= generation_facts(model_root.path / "logs", prefix)
        failures |= generation_failures(model_root.path / "logs", prefix)
        statuses |= trial_statuses(model_root.path, competition.platform, prefix)
        for team in list_team_dirs(model_root.path, competition.platform):
            team_dir = model_root.path / team
            letters |= _letters_of(team_dir)
            classified |= (team_dir / "images").is_dir()  # classify ran on them (it runs wherever images exist)
            simulated |= (team_dir / "levels").is_dir()
            found |= {f for f in ("stability", "similarity") if any((team_dir / f).glob("*.json"))}
            image_dir = team_dir / "images"
            for char_dir in sorted(p for p in image_dir.iterdir() if p.is_dir()) if image_dir.is_dir() else []:
                for image in list_visible_files(char_dir):
                    key = trial_key(prefix + team, char_dir.name, image.name)
                    if key is not None and is_level_image(image.name):
                        images[key] = image
    names = {"/".join(key): key for key in images}
    cache = thumbnails if thumbnails is not None else ThumbnailCache(thumbnail_cache_path(competition.root))
    made = make_thumbnails({name: images[key] for name, key in names.items()}, executor=executor, cache=cache)
    uncertainty = None
    if run.scores and len(run.scores) == 1:  # summed multi-model scores get no intervals (yet)
        (scores,) = run.scores.values()
        ranked = [team.team for team in run.leaderboard]
        with_diversity = competition.edition.diversity is not None
        uncertainty = normalized_uncertainty(scores, ranked, with_diversity=with_diversity)
    report = ReportInput(
        run=run,
        provenance=run_provenance(
            competition.edition.year,
            classifier if classified else None,
            simulated=simulated,
            programs=tuple(programs),
            found=frozenset(found),
            generation=describe_generation(facts),
            unscored=_unscored(failures, {team.team for team in run.leaderboard}),
        ),
        letters=tuple(sorted(letters)),
        uncertainty=uncertainty,
        statuses=statuses,
        asked=asked if asked is not None else competition_asked(competition),
        thumbnails={names[name]: png for name, png in made.items()},
        title=f"{competition.root.name} — podium PCG report (edition {competition.edition.year})",
    )
    path = competition.root / "result" / "report.html"
    write_report(path, render_report(report))
    return path


def _unscored(failures: dict[tuple[str, str, str], tuple[str, str]], ranked: set[str]) -> tuple[str, ...]:
    """Teams generate failed that are not on the board, with the first failure: ``zergy (program_rejected: ...)``."""
    first: dict[str, tuple[str, str]] = {}
    for (team, _, _), why in sorted(failures.items()):
        first.setdefault(team, why)
    return tuple(
        f"{team} ({verdict}: {reason.splitlines()[0] if reason else ''})"
        for team, (verdict, reason) in sorted(first.items())
        if team not in ranked
    )


def _letters_of(team_dir: Path) -> set[str]:
    """The letters a team folder has anything for: a character folder of a trial stage, or a per-letter file."""
    letters = set()
    for folder in TRIAL_FOLDERS:
        letters |= {p.name for p in (team_dir / folder).glob("*") if p.is_dir() and len(p.name) == 1}
    for folder in CHARACTER_FILE_FOLDERS:
        letters |= {p.stem for p in (team_dir / folder).glob("*.json") if len(p.stem) == 1}
    return letters
