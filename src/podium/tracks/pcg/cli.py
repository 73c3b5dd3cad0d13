"""``podium pcg ...``: one command per official stage, on the official folder layout."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar

import click

from podium.cli.options import format_option, json_option, workers_option
from podium.core.errors import ConfigError
from podium.core.execution.executor import Executor, make_executor
from podium.core.reporting.tables import console_json, render_table
from podium.tracks.pcg.classifiers import ClassifierSpec
from podium.tracks.pcg.competition import open_competition
from podium.tracks.pcg.console import failure_lines, log_lines, warning_lines
from podium.tracks.pcg.edition_option import edition_option
from podium.tracks.pcg.editions import TRIALS_PER_CHARACTER, Edition
from podium.tracks.pcg.official import jsnum
from podium.tracks.pcg.official.rundir import Platform
from podium.tracks.pcg.promptlength import prompt_lengths
from podium.tracks.pcg.rules.winner import DEFAULT_BASELINE
from podium.tracks.pcg.run_plan import describe_asked
from podium.tracks.pcg.stages.build import run_build
from podium.tracks.pcg.stages.classify import run_classify
from podium.tracks.pcg.stages.diversity import run_diversity
from podium.tracks.pcg.stages.driver import StageSettings, StageSummary
from podium.tracks.pcg.stages.extract import run_extract
from podium.tracks.pcg.stages.qualify import run_qualify
from podium.tracks.pcg.stages.score import ScoreOptions, run_score
from podium.tracks.pcg.stages.simulate import run_simulate
from podium.tracks.pcg.standings import ScoreRun

_ROOT = click.Path(path_type=Path, file_okay=False)


F = TypeVar("F", bound=Callable[..., Any])


_force_option = click.option("--force", is_flag=True, help="Redo every item, even outputs that are current.")
_json_option = json_option("Print a machine-readable summary.")
_order_option = click.option(
    "--platform",
    type=click.Choice([o.value for o in Platform]),
    default=Platform.POSIX.value,
    show_default=True,
    help="System whose conventions to reproduce: posix (byte-ordered team folders, LF) or windows (NTFS order, CRLF).",
)


@click.group()
def pcg() -> None:
    """ChatGPT4PCG / LLMs4PCG: Science Birds character levels, judged as the official tools do."""


def _print_stage(summary: StageSummary, as_json: bool) -> None:
    if as_json:
        click.echo(
            json.dumps(
                {
                    "stage": summary.stage,
                    "counts": {v: summary.count(v) for v in sorted({e.verdict for e in summary.events})},
                    "items": [
                        {
                            "team": e.team,
                            "character": e.character,
                            "trial": e.trial,
                            "verdict": e.verdict,
                            "reason": e.reason,
                        }
                        for e in summary.events
                    ],
                    "warnings": list(summary.warnings),
                    "logs": [str(p) for p in summary.log_files],
                },
                indent=2,
                ensure_ascii=False,
            )
        )
        return
    counts = {v: summary.count(v) for v in sorted({e.verdict for e in summary.events})}
    shown = ", ".join(f"{n} {verdict}" for verdict, n in counts.items()) or "nothing to do"
    click.echo(f"{summary.stage}: {len(summary.events)} items: {shown}")
    _print_ending([summary])


def _print_ending(summaries: list[StageSummary]) -> None:
    """The end of a stage command or of evaluate: warnings (stderr), failures by verdict and reason, the logs."""
    for line in warning_lines(summaries):
        click.echo(line, err=True)
    for line in failure_lines(summaries):
        click.echo(line)
    for line in log_lines(summaries, only_with_news=len(summaries) > 1):
        click.echo(line)


@pcg.command()
@click.argument("prompts_dir", type=_ROOT)
@edition_option(lambda e: e.qualification, "qualification script")  # later editions read programs by hand
@_json_option
@click.option("--no-copy", is_flag=True, help="Do not copy qualified prompts to PROMPTS_DIR/../qualified/.")
def qualify(prompts_dir: Path, edition: Edition, as_json: bool, no_copy: bool) -> None:
    """Check 2023 prompts (<TEAM>.txt): at most 900 words, allowed characters, an <OBJECT> token.

    Only the 2023 edition had a qualification script; 2024 and 2025 inspected programs by hand.
    """
    run = run_qualify(prompts_dir, copy=not no_copy)
    results, qualified_dir = run.results, run.qualified_dir
    if as_json:
        click.echo(
            json.dumps(
                [
                    {
                        "team": r.team,
                        "words": r.words,
                        "qualified": r.qualified,
                        "verdict": r.failure.verdict.value if r.failure else "qualified",
                        "reason": r.failure.reason if r.failure else "",
                    }
                    for r in results
                ],
                indent=2,
                ensure_ascii=False,
            )
        )
    else:
        rows = [
            [r.team, r.words, "qualified" if r.qualified else "DISQUALIFIED", r.failure.reason if r.failure else ""]
            for r in results
        ]
        click.echo(render_table(["team", "words", "verdict", "reason"], rows))
        if not no_copy:
            click.echo(f"qualified prompts copied to {qualified_dir}")
    for warning in run.warnings:
        click.echo(f"warning: {warning}", err=True)


@pcg.command("inspect")
@click.argument("programs", nargs=-1, required=True, type=click.Path(path_type=Path, exists=True))
@json_option("Print the reports as JSON.")
def inspect_command(programs: tuple[Path, ...], as_json: bool) -> None:
    """Report on participant programs (.py files) and whole submissions (folders or .zip archives).

    For each program: imports, calls outside the official API, file, process and network use, obfuscation and
    size. For a submission, first what `generate` needs settled: the entry candidates, imports nothing declares,
    the files it reads and whether it has them, what it writes, model clients it calls itself and the README's run
    instructions, with a suggested command line. A help to the person reading each program, not a verdict: the
    exit status is 0 whatever it finds.
    """
    from podium.tracks.pcg.inspect import inspect_program, report_as_json, report_as_text
    from podium.tracks.pcg.inspect_submission import inspect_submissions, submission_as_json, submission_as_text

    whole = [path for path in programs if path.is_dir() or path.suffix == ".zip"]
    single = [path for path in programs if path not in whole]
    reports = [inspect_program(path) for path in single]
    submissions = [report for path in whole for report in inspect_submissions(path)]  # an archive may hold several
    if as_json:
        data = {
            "programs": [report_as_json(r) for r in reports],
            "submissions": [submission_as_json(s) for s in submissions],
        }
        click.echo(console_json(data))
    else:
        texts = [report_as_text(r) for r in reports] + [submission_as_text(s) for s in submissions]
        click.echo("\n\n".join(texts))


def _text_stage(command: F) -> F:
    """The arguments of a stage that turns each trial's text file into the next one (extract, build)."""
    for option in (_order_option, _json_option, _force_option, edition_option(), click.argument("root", type=_ROOT)):
        command = option(command)
    return pcg.command()(command)  # type: ignore[return-value]


@_text_stage
def extract(root: Path, edition: Edition, force: bool, as_json: bool, platform: str) -> None:
    """raw/ → intermediate/: the drop calls of each response's last fenced code block."""
    _print_stage(run_extract(open_competition(root, edition, Platform(platform)), StageSettings(force=force)), as_json)


@_text_stage
def build(root: Path, edition: Edition, force: bool, as_json: bool, platform: str) -> None:
    """intermediate/ → levels/: drop the blocks on the 20×16 grid and write Science Birds XML."""
    _print_stage(run_build(open_competition(root, edition, Platform(platform)), StageSettings(force=force)), as_json)


_workers_option = workers_option()


@pcg.command()
@click.argument("root", type=_ROOT)
@edition_option()
@_workers_option
@_force_option
@_json_option
@_order_option
def simulate(root: Path, edition: Edition, workers: int | None, force: bool, as_json: bool, platform: str) -> None:
    """levels/ → stability/ + images/: Box2D physics and the black-and-white image, as Unity's evaluator."""
    competition = open_competition(root, edition, Platform(platform))
    summary = run_simulate(competition, StageSettings(force=force, executor=make_executor(workers)))
    _print_stage(summary, as_json)


@pcg.command()
@click.argument("root", type=_ROOT)
@edition_option()
@click.option(
    "--classifier",
    default="embedded",
    show_default=True,
    help="embedded (offline, approximates the official ViT), hf (the edition's official ViT from the Hugging Face "
    "hub), hf:<hub id or folder>, or onnx:<file>.",
)
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Images per forward pass for hf: and onnx: (1 reproduces the official script bit for bit); "
    "embedded always takes 16.",
)
@_workers_option
@_force_option
@_json_option
@_order_option
def classify(
    root: Path,
    edition: Edition,
    classifier: str,
    batch_size: int,
    workers: int | None,
    force: bool,
    as_json: bool,
    platform: str,
) -> None:
    """images/ → similarity/: the probability that each level image shows its target letter."""
    spec = ClassifierSpec(_classifier(classifier, edition), batch_size)
    executor = make_executor(workers)
    competition = open_competition(root, edition, Platform(platform))
    summary = run_classify(competition, StageSettings(force=force, executor=executor, classifier=spec))
    _print_stage(summary, as_json)


@pcg.command("export-onnx")
@click.argument("model")
@click.argument("output", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--int8", is_flag=True, help="Quantize the weights to int8 (smaller and faster, less exact).")
def export_onnx_command(model: str, output: Path, int8: bool) -> None:
    """Export an hf: classifier (MODEL = hf:<hub id or folder>) to ONNX for the onnx: back-end."""
    from podium.tracks.pcg.classifiers.onnx import export_onnx

    if not model.startswith("hf:"):
        raise ConfigError(f"cannot export {model!r}", fix="name the model as hf:<hub id or local folder>")
    written = export_onnx(model.removeprefix("hf:"), output, int8=int8)
    click.echo(f"wrote {written} and {written.with_suffix('.preprocess.json')}; use --classifier onnx:{written}")


@pcg.command()
@click.argument("root", type=_ROOT)
@edition_option()
@click.option("--classifier", default="embedded", show_default=True, help="As for `podium pcg classify`.")
@_workers_option
@click.option(
    "--executor",
    "executor_kind",
    type=click.Choice(["local", "dask"]),
    default="local",
    show_default=True,
    help="Where simulation and classification jobs run: local processes, or a Dask distributed cluster (--scheduler).",
)
@click.option("--scheduler", default=None, help="Dask scheduler address, e.g. tcp://10.0.0.5:8786.")
@click.option("--prompts", "prompts_dir", type=_ROOT, default=None, help="As for `podium pcg score`.")
@_force_option
@_order_option
def evaluate(
    root: Path,
    edition: Edition,
    classifier: str,
    workers: int | None,
    executor_kind: str,
    scheduler: str | None,
    prompts_dir: Path | None,
    force: bool,
    platform: str,
) -> None:
    """Run every stage from what exists (raw → result), resumably, and write result/report.html."""
    from podium.tracks.pcg.pipeline import evaluate as run_evaluation

    if executor_kind == "dask":
        if scheduler is None:
            raise ConfigError("--executor dask needs --scheduler", fix="pass --scheduler tcp://HOST:PORT")
        from podium.core.execution.dask import DaskExecutor

        executor: Executor = DaskExecutor(scheduler)
    else:
        executor = make_executor(workers)
    options = ScoreOptions(prompt_lengths=prompt_lengths(prompts_dir) if prompts_dir else None)
    progress = _Progress()
    competition = open_competition(root, edition, Platform(platform))
    evaluation = run_evaluation(
        competition, ClassifierSpec(_classifier(classifier, edition)), executor=executor, options=options,
        force=force, on_item=progress.item,
    )  # fmt: skip
    progress.done()
    rows: list[list[str | int | float | None]] = []
    for report in evaluation.stages:
        events = report.summary.events
        failed = sum(e.failed for e in events)
        skipped = sum(e.verdict == "skipped" for e in events)
        stage = f"{report.model}/{report.stage}" if report.model else report.stage
        rows.append([stage, len(events), len(events) - failed - skipped, skipped, failed, f"{report.seconds:.1f}"])
    click.echo(render_table(["stage", "items", "done", "skipped", "failed", "seconds"], rows))
    click.echo("")
    if evaluation.score is not None:
        _print_leaderboard(evaluation.score, "table")
    asked = describe_asked(evaluation.asked)
    if asked is not None:
        click.echo(f"{asked}; the result files score every letter and trial, as the official script does, and "
                   "those not asked score 0")  # fmt: skip
    click.echo(f"report: {evaluation.report_path}")
    _print_ending([report.summary for report in evaluation.stages])


class _Progress:
    """A one-line counter per stage on a terminal; silent when output is redirected."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()
        self.stage = ""
        self.count = 0

    def item(self, stage: str, _event: object) -> None:
        if not self.enabled:
            return
        if stage != self.stage:
            self.done()
            self.stage, self.count = stage, 0
        self.count += 1
        if self.count % 25 == 0:
            click.echo(f"\r{stage}: {self.count} items", nl=False, err=True)

    def done(self) -> None:
        if self.enabled and self.stage:
            click.echo(f"\r{self.stage}: {self.count} items", err=True)
            self.stage = ""


@pcg.command()
@click.argument("oracle", type=_ROOT)
@format_option(("table", "csv", "json"))
@click.option("--per-level/--summary-only", default=True, show_default=True, help="Print a row per level.")
def calibrate(oracle: Path, fmt: str, per_level: bool) -> None:
    """Compare podium's evaluator with Unity's outputs (a folder like data/pcg/unity-2023), level by level."""
    from podium.tracks.pcg.calibrate import compare_with_unity, summarize

    rows = list(compare_with_unity(oracle))
    summary = summarize(rows)
    if per_level:
        header = ["team", "character", "level", "unity score", "our score", "exact", "image IoU"]
        table = [
            [
                r.team,
                r.character,
                r.level,
                repr(r.unity_score),
                repr(r.our_score),
                "yes" if r.exact else "NO",
                f"{r.image_iou:.4f}",
            ]
            for r in rows
        ]
        click.echo(render_table(header, table, fmt))
    fields = {name: getattr(summary, name) for name in summary.__slots__}
    if fmt == "json":
        click.echo(console_json(fields))
    else:
        click.echo("")
        for name, value in fields.items():
            click.echo(f"{name}: {value:.6f}" if isinstance(value, float) else f"{name}: {value}")


@pcg.command()
@click.argument("root", type=_ROOT)
@edition_option(lambda e: e.diversity is not None, "diversity factor")
@click.option(
    "--trials",
    type=click.IntRange(min=1),
    default=TRIALS_PER_CHARACTER,
    show_default=True,
    help="T in the fixed denominator 0.5·T·(T+1) − T.",
)
@_force_option
@_json_option
@_order_option
def diversity(root: Path, edition: Edition, trials: int, force: bool, as_json: bool, platform: str) -> None:
    """similarity/ → diversity/: mean cosine distance between a character's trials."""
    competition = open_competition(root, edition, Platform(platform))
    summary = run_diversity(competition, StageSettings(force=force, trials=trials))
    _print_stage(summary, as_json)


@pcg.command()
@click.argument("root", type=_ROOT)
@edition_option()
@click.option(
    "--trials",
    type=click.IntRange(min=1),
    default=TRIALS_PER_CHARACTER,
    show_default=True,
    help="T: trials per character.",
)
@click.option("--no-weights", is_flag=True, help="Set every character weight to 1 (the script's DISABLE_WEIGHTS).")
@click.option(
    "--official-ranks",
    is_flag=True,
    help="Rank tied teams by folder order like the official script, instead of the published tie-break.",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Abort when a team's stage folders hold different numbers of files, like the official script.",
)
@click.option(
    "--prompts",
    "prompts_dir",
    type=_ROOT,
    default=None,
    help="Folder of prompts or programs (<TEAM>.txt, <TEAM>.py or <TEAM>/): their prompt words break ties "
    "(shorter prompt wins; see docs/design/pcg-scoring.md).",
)
@click.option(
    "--baseline",
    default=DEFAULT_BASELINE,
    show_default=True,
    help="2025 on: the zero-shot baseline team the winner must beat.",
)
@click.option(
    "--not-competing",
    multiple=True,
    help="2025 on: an entry scored but never declared winner (repeatable; default: teams named baseline*).",
)
@_order_option
@format_option(help="How to print the leaderboard.")
def score(
    root: Path,
    edition: Edition,
    trials: int,
    no_weights: bool,
    official_ranks: bool,
    strict: bool,
    prompts_dir: Path | None,
    baseline: str,
    not_competing: tuple[str, ...],
    platform: str,
    fmt: str,
) -> None:
    """stability/ + similarity/ (+ diversity/) → result/: weights, scores, normalisation and ranks."""
    options = ScoreOptions(
        trials=trials,
        use_weights=not no_weights,
        official_ranks=official_ranks,
        strict=strict,
        prompt_lengths=prompt_lengths(prompts_dir) if prompts_dir else None,
        baseline=baseline,
        not_competing=frozenset(not_competing) if not_competing else None,
    )
    run = run_score(open_competition(root, edition, Platform(platform)), options)
    _print_leaderboard(run, fmt)


def _print_leaderboard(run: ScoreRun, fmt: str) -> None:
    models = list(run.models)
    header = ["rank", "team", "normalized", "prompt score", *models]
    rows: list[list[Any]] = []
    for team in run.leaderboard:
        rank = f"{team.rank}" + (f" ({team.decided_by})" if team.decided_by else "")
        row: list[Any] = [rank, team.team]
        if fmt in ("csv", "json"):
            row += [jsnum.to_fixed(team.normalized), jsnum.to_fixed(team.prompt)]
        else:
            row += [f"{float(team.normalized):.4f}", f"{float(team.prompt):.6f}"]
        row += [jsnum.to_fixed((team.per_model or {}).get(m, Decimal(0))) for m in models]
        rows.append(row)
    click.echo(render_table(header, rows, fmt))
    if fmt in ("table", "markdown"):
        # at the table's precision; the exact value (20 decimal places, as the official script) is in constants.json
        click.echo(f"\ncompetition score {float(run.competition):.6f}; result files in {run.result_dir}")
        if run.winner is not None:
            click.echo(run.winner.message)
    for warning in run.warnings:
        click.echo(f"warning: {warning}", err=True)


def _classifier(spec: str, edition: Edition) -> str:
    """The classifier spec, ``hf`` alone naming the edition's official model."""
    return f"hf:{edition.classifier_model}" if spec == "hf" else spec


from podium.tracks.pcg.generation.cli import register as _register_generate  # noqa: E402

_register_generate(pcg)
