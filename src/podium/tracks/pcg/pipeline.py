"""Evaluate (``podium pcg evaluate``): every stage from what exists to ``result/``, resumable, then the report.

Stages run in pipeline order on each official root (one per model in a multi-model root): extract, build,
simulate, classify, diversity (2024+), then score over the whole competition and the report. A stage runs only
when some team has its input folder, so a competition can enter anywhere (responses, levels or images). Every
stage skips what is current, so a run killed at any point and started again ends with the same result files as
an uninterrupted run. With the embedded classifier, simulate hands its rendered images to classify in memory
(``handoff.py``), which then decodes only the PNGs this run did not render.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from podium.core.errors import PodiumError
from podium.core.execution.executor import Executor, SerialExecutor
from podium.core.storage.state import STATE_FOLDER
from podium.tracks.pcg.bootstrap import normalized_uncertainty
from podium.tracks.pcg.classifiers import ClassifierSpec
from podium.tracks.pcg.editions import Edition
from podium.tracks.pcg.handoff import ImageHandoff
from podium.tracks.pcg.layout import competition_roots
from podium.tracks.pcg.official.rundir import Platform, list_team_dirs, list_visible_files
from podium.tracks.pcg.official.stagelog import ItemEvent
from podium.tracks.pcg.provenance import ProgramEnvironment, program_environments, run_provenance
from podium.tracks.pcg.report import ReportInput, render_report, write_report
from podium.tracks.pcg.run_plan import AskedTrials, asked_trials
from podium.tracks.pcg.stages.build import run_build
from podium.tracks.pcg.stages.classify import run_classify
from podium.tracks.pcg.stages.diversity import run_diversity
from podium.tracks.pcg.stages.driver import StageSummary
from podium.tracks.pcg.stages.extract import run_extract
from podium.tracks.pcg.stages.score import ScoreOptions, ScoreRun, run_score
from podium.tracks.pcg.stages.simulate import run_simulate
from podium.tracks.pcg.thumbnails import ThumbnailCache, make_thumbnails
from podium.tracks.pcg.trial_status import TrialKey, TrialStatus, trial_key, trial_statuses
from podium.tracks.pcg.verdicts import PcgVerdict

STAGE_INPUTS = {"extract": "raw", "build": "intermediate", "simulate": "levels", "classify": "images",
                "diversity": "similarity"}  # fmt: skip


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


def _has_input(root: Path, folder: str, platform: Platform) -> bool:
    return any((root / team / folder).is_dir() for team in list_team_dirs(root, platform))


def evaluate(
    root: Path,
    edition: Edition,
    classifier: ClassifierSpec,
    *,
    executor: Executor | None = None,
    options: ScoreOptions | None = None,
    force: bool = False,
    on_item: Callable[[str, ItemEvent], None] | None = None,
) -> Evaluation:
    """Run every stage that has input, score, and write ``result/report.html``."""
    options = options or ScoreOptions()
    platform = options.platform
    executor = executor or SerialExecutor()
    evaluation = Evaluation()
    stages = ["extract", "build", "simulate", "classify"] + (["diversity"] if edition.diversity is not None else [])
    make_input = classifier.input_maker()
    thumbnails = ThumbnailCache(thumbnail_cache_path(root))  # simulate fills it; the report reads it
    for model_root in competition_roots(root, platform):
        path, model = model_root.path, model_root.model or ""
        handoff = None if make_input is None else ImageHandoff(make_input)  # one model root's images at a time
        previous: StageSummary | None = None
        for stage in stages:
            if not _has_input(path, STAGE_INPUTS[stage], platform):
                _require_handover(previous, stage, path)
                continue
            callback = None if on_item is None else _tagged(on_item, stage)
            started = time.perf_counter()
            summary = _run_stage(
                stage, path, edition, classifier, executor, force, platform, callback, handoff, thumbnails
            )
            if not summary.events and not any(path.glob(f"*/{STAGE_INPUTS[stage]}/*/*")):
                _require_handover(previous, stage, path)  # no item, and no input file either
            evaluation.stages.append(StageReport(stage, model, summary, time.perf_counter() - started))
            previous = summary
    evaluation.score = run_score(root, edition, options)
    evaluation.asked = competition_asked(root, platform)
    evaluation.report_path = write_evaluation_report(root, edition, evaluation.score, platform, classifier, executor)
    return evaluation


def competition_asked(root: Path, platform: Platform) -> dict[str, AskedTrials]:
    """What ``generate`` asked of each team, over every model root (teams named ``MODEL/TEAM`` there)."""
    asked: dict[str, AskedTrials] = {}
    for model_root in competition_roots(root, platform):
        asked |= asked_trials(model_root.path / "logs", f"{model_root.model}/" if model_root.model else "")
    return asked


def _require_handover(previous: StageSummary | None, stage: str, root: Path) -> None:
    """Fail when the stage before wrote outputs and ``stage`` finds none of them where they belong."""
    if previous is None:
        return
    written = previous.count(PcgVerdict.OK) + previous.count(PcgVerdict.SKIPPED)
    if written:
        raise PodiumError(
            f"{previous.stage} reported {written} outputs, but {stage} finds no input under {root}/<TEAM>/"
            f"{STAGE_INPUTS[stage]}/: they were written somewhere else",
            fix="run the workers where they see the competition root at the same absolute path (a shared file "
            "system), or use the local pool (--workers N)",
        )


def _tagged(on_item: Callable[[str, ItemEvent], None], stage: str) -> Callable[[ItemEvent], None]:
    return lambda event: on_item(stage, event)


def _run_stage(
    stage: str,
    path: Path,
    edition: Edition,
    classifier: ClassifierSpec,
    executor: Executor,
    force: bool,
    platform: Platform,
    on_item: Callable[[ItemEvent], None] | None,
    handoff: ImageHandoff | None,
    thumbnails: ThumbnailCache,
) -> StageSummary:
    if stage == "extract":
        return run_extract(path, edition, force=force, platform=platform, on_item=on_item)
    if stage == "build":
        return run_build(path, edition, force=force, platform=platform, on_item=on_item)
    if stage == "simulate":
        return run_simulate(
            path, executor=executor, force=force, platform=platform, on_item=on_item, handoff=handoff,
            thumbnails=thumbnails,
        )  # fmt: skip
    if stage == "classify":
        return run_classify(
            path, classifier, edition, executor=executor, force=force, platform=platform, on_item=on_item,
            handoff=handoff,
        )  # fmt: skip
    return run_diversity(path, edition, force=force, platform=platform, on_item=on_item)


def thumbnail_cache_path(root: Path) -> Path:
    """Where a competition root keeps its report's thumbnails (by source digest, so any stage may add to it)."""
    return root / STATE_FOLDER / "thumbnails.jsonl"


def write_evaluation_report(
    root: Path, edition: Edition, run: ScoreRun, platform: Platform, classifier: ClassifierSpec, executor: Executor
) -> Path:
    """The report from the files alone, so a rerun or a resumed run writes the same page as an uninterrupted one."""
    images: dict[TrialKey, Path] = {}
    statuses: dict[TrialKey, TrialStatus] = {}
    letters: set[str] = set()
    classified = simulated = False
    programs: list[ProgramEnvironment] = []
    for model_root in competition_roots(root, platform):
        prefix = f"{model_root.model}/" if model_root.model else ""
        programs += program_environments(model_root.path / "logs", prefix)
        statuses |= trial_statuses(model_root.path, platform, prefix)
        for team in list_team_dirs(model_root.path, platform):
            team_dir = model_root.path / team
            letters |= _letters_of(team_dir)
            classified |= (team_dir / "images").is_dir()  # classify ran on them (it runs wherever images exist)
            simulated |= (team_dir / "levels").is_dir()
            image_dir = team_dir / "images"
            for char_dir in sorted(p for p in image_dir.iterdir() if p.is_dir()) if image_dir.is_dir() else []:
                for image in list_visible_files(char_dir):
                    key = trial_key(prefix + team, char_dir.name, image.name)
                    if key is not None and not image.name.endswith("_raw.png"):
                        images[key] = image
    names = {"/".join(key): key for key in images}
    cache = ThumbnailCache(thumbnail_cache_path(root))
    made = make_thumbnails({name: images[key] for name, key in names.items()}, executor=executor, cache=cache)
    uncertainty = None
    if run.scores and len(run.scores) == 1:  # summed multi-model scores get no intervals (yet)
        (scores,) = run.scores.values()
        ranked = [team.team for team in run.leaderboard]
        uncertainty = normalized_uncertainty(scores, ranked, with_diversity=edition.diversity is not None)
    report = ReportInput(
        run=run,
        provenance=run_provenance(
            edition.year, classifier if classified else None, simulated=simulated, programs=tuple(programs)
        ),
        letters=tuple(sorted(letters)),
        uncertainty=uncertainty,
        statuses=statuses,
        asked=competition_asked(root, platform),
        thumbnails={names[name]: png for name, png in made.items()},
        title=f"{root.resolve().name} — podium PCG report (edition {edition.year})",
    )
    path = root / "result" / "report.html"
    write_report(path, render_report(report))
    return path


def _letters_of(team_dir: Path) -> set[str]:
    """The letters a team folder has anything for: a character folder of a trial stage, or a per-letter file."""
    letters = set()
    for folder in ("raw", "intermediate", "levels", "images"):
        letters |= {p.name for p in (team_dir / folder).glob("*") if p.is_dir() and len(p.name) == 1}
    for folder in ("stability", "similarity", "diversity"):
        letters |= {p.stem for p in (team_dir / folder).glob("*.json") if len(p.stem) == 1}
    return letters
