"""Report: the leaderboard as text, Markdown, CSV or JSON, and one HTML page with the statistics.

JSON and CSV carry exact values as fraction strings (``"17/4"``); the table and Markdown round to 3 decimals for reading
(docs/rules/wmeval.md §1.5, A9) and add each team's 95% bootstrap interval. The HTML report adds which neighbours cannot
be told apart, agreement on the overlap set, each annotator's severity and gold accuracy, and what was not scored and
why.
"""

from __future__ import annotations

from fractions import Fraction

from sqlalchemy import Engine

from podium.core.ranking.bootstrap import Uncertainty
from podium.core.ranking.leaderboard import Ranked
from podium.core.reporting.charts import CHART_STYLE, IntervalRow, interval_chart
from podium.core.reporting.markup import document, esc, table
from podium.core.reporting.tables import Cell, console_json, render_table
from podium.tracks.wmeval.assign import assignments
from podium.tracks.wmeval.firmness import Firmness, neighbour_firmness
from podium.tracks.wmeval.freeze import frozen_since
from podium.tracks.wmeval.ingest import stored_media_root
from podium.tracks.wmeval.kinds import ItemKind
from podium.tracks.wmeval.metrics import METRICS_FILE, far_from_metric, read_metrics, spearman
from podium.tracks.wmeval.score import Collected, EpisodeStatus, TaskScore, TeamScore, collect, leaderboard
from podium.tracks.wmeval.stats import (
    Agreement,
    AnnotatorQuality,
    annotator_quality,
    bootstrap,
    collect_ratings,
    overlap_agreement,
    pair_agreement,
    time_on_item,
)


def exact(value: Fraction) -> str:
    """A fraction as text: ``17/4``, ``3``."""
    return str(value)


def shown(value: Fraction) -> str:
    """A fraction rounded to 3 decimals for reading."""
    return f"{float(value):.3f}"


def scores_json(collected: Collected, ranked: list[Ranked[TeamScore]]) -> dict[str, object]:
    """``{"teams": [{"team", "rank", "final", "tasks": {...}, "ratings_to_tie_next"}]}`` with exact fractions."""
    firm = {f.upper: f.ratings for f in neighbour_firmness(collected, ranked)}
    return {
        "teams": [
            {
                "team": r.entry.team,
                "rank": r.rank,
                "final": exact(r.entry.final),
                "tasks": {task: exact(r.entry.tasks[task].value) for task in collected.tasks},
                "ratings_to_tie_next": firm.get(r.entry.team),  # None for the last team
            }
            for r in ranked
        ]
    }


def scores_text(engine: Engine, fmt: str, seed: int = 0) -> str:
    """The leaderboard in ``fmt``: table, markdown, csv or json."""
    collected = collect(engine)
    ranked = leaderboard(collected)
    if fmt == "json":
        return console_json(scores_json(collected, ranked))
    if fmt == "csv":
        header = ("rank", "team", "final", *collected.tasks)
        exact_rows: list[list[Cell]] = [
            [r.rank, r.entry.team, exact(r.entry.final), *(exact(r.entry.tasks[t].value) for t in collected.tasks)]
            for r in ranked
        ]
        return render_table(header, exact_rows, "csv")
    spread = bootstrap(collected, [r.entry for r in ranked], seed=seed)
    firm = {f.upper: f for f in neighbour_firmness(collected, ranked)}
    header = ("rank", "team", "final", "95% CI", "ratings to tie next", *collected.tasks, "not scored")
    rows: list[list[Cell]] = []
    for r in ranked:
        ci = spread.intervals[r.entry.team]
        rows.append(
            [r.rank, r.entry.team, shown(r.entry.final), f"{ci.low:.3f}-{ci.high:.3f}", _firm(firm.get(r.entry.team)),
             *(_task_cell(r.entry.tasks[t]) for t in collected.tasks), _unscored(r.entry)]
        )  # fmt: skip
    text = render_table(header, rows, fmt)
    ties = [f"{a} ~ {b}" for a, b, apart in spread.neighbours if not apart]
    if ties:
        text += "\ncannot be told apart (95% paired bootstrap): " + ", ".join(ties)
    return text


def _firm(firmness: Firmness | None) -> str:
    """How many single ratings would tie this team with the next one down (``firmness.py``)."""
    return "-" if firmness is None else str(firmness.ratings)  # "-": the last team


def _unscored(team: TeamScore) -> str:
    totals: dict[str, int] = {}
    for task in team.tasks.values():
        for status, count in task.statuses.items():
            if status is not EpisodeStatus.SCORED and count:
                totals[status] = totals.get(status, 0) + count
    return ", ".join(f"{n} {s}" for s, n in sorted(totals.items())) or "-"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:+.3f}"


def _duration(timed: tuple[int, float] | None) -> str:
    """``42 s (8 items)``: the median from opening an item to answering it, over the items answered in the page."""
    if timed is None:
        return "-"
    count, seconds = timed
    return f"{seconds:.0f} s ({count} item{'s' * (count != 1)})"


def _task_cell(task: TaskScore) -> str:
    """A task's fraction with the counts behind it: ``0.667 (N0-N3 1/0/0/1 of 3)``."""
    counts = "/".join(str(n) for n in task.counts)
    return f"{shown(task.value)} (N0-N3 {counts} of {task.denominator})"


def report_html(engine: Engine, seed: int = 0) -> str:
    """A standalone HTML report: leaderboard with intervals, ties, agreement, annotators, unscored videos."""
    collected = collect(engine)
    ranked = leaderboard(collected)
    spread: Uncertainty = bootstrap(collected, [r.entry for r in ranked], seed=seed)
    ratings = collect_ratings(engine)
    agree: Agreement = overlap_agreement(ratings)
    quality: list[AnnotatorQuality] = annotator_quality(ratings)
    firm = {f.upper: f for f in neighbour_firmness(collected, ranked)}
    board = table(
        ["rank", "team", "final", "exact", "95% CI", "ratings to tie next", *collected.tasks, "not scored"],
        [
            [str(r.rank), r.entry.team, shown(r.entry.final), exact(r.entry.final),
             f"{spread.intervals[r.entry.team].low:.3f}-{spread.intervals[r.entry.team].high:.3f}",
             _firm(firm.get(r.entry.team)), *(_task_cell(r.entry.tasks[t]) for t in collected.tasks),
             _unscored(r.entry)]
            for r in ranked
        ],
    )  # fmt: skip
    neighbours = table(
        ["team", "next", "distinguishable"], [[a, b, "yes" if apart else "no"] for a, b, apart in spread.neighbours]
    )
    alpha = "-" if agree.alpha is None else f"{agree.alpha:.3f}"
    agreement_html = (
        f"<p>{agree.units} video(s) scored by several annotators, {agree.pairs} pair(s) of ratings: "
        f"Krippendorff's alpha (ordinal) {alpha}, exact agreement {_pct(agree.exact)}, "
        f"within one point {_pct(agree.within_one)}.</p>"
    )
    pairs = table(
        ["annotator", "with", "shared videos", "exact", "within one", "mean difference"],
        [[p.first, p.second, str(p.shared), _pct(p.exact), _pct(p.within_one), f"{p.mean_difference:+.2f}"]
         for p in pair_agreement(ratings)],
    )  # fmt: skip
    timed = time_on_item(engine)
    annotators = table(
        ["annotator", "scored", "mean score", "severity (vs others)", "gold items", "gold accuracy",
         "median time on item"],
        [[q.annotator, str(q.scored), "-" if q.mean is None else f"{q.mean:.2f}", _num(q.severity),
          str(q.gold_items), _pct(q.gold_accuracy), _duration(timed.get(q.annotator))] for q in quality],
    )  # fmt: skip
    with engine.connect() as db:
        since = frozen_since(db)
    status = (
        f"<p id='scoring-status'>Scoring frozen since {esc(since)}: these are the published answers.</p>"
        if since is not None
        else "<p id='scoring-status'><strong>Scoring is open: these numbers can still change</strong> "
        "(<code>podium wmeval freeze</code> before publishing).</p>"
    )
    chart = interval_chart(
        [IntervalRow(r.entry.team, float(r.entry.final), spread.intervals[r.entry.team].low,
                     spread.intervals[r.entry.team].high) for r in ranked],
        "Final score per team (0-3), with its 95 % paired bootstrap interval.", digits=2,
    )  # fmt: skip
    style = "body{font:15px system-ui;margin:2rem auto;max-width:70rem}td,th{padding:.2rem .6rem;text-align:left}"
    return document("wmeval report", (
        f"<h1>World Model track: human evaluation report</h1>{status}"
        "<p>Per task (3·N3 + 2·N2 + 1·N1) / N_GT, shown with its counts N0/N1/N2/N3 of the task's N_GT videos; "
        "missing, unplayable and unscored videos count 0; final = mean "
        f"over {len(collected.tasks)} task(s). Intervals: {spread.resamples} paired bootstrap resamples of "
        f"episodes within tasks (seed {spread.seed}).</p>"
        f"<h2>Leaderboard</h2>{board}{chart}<h2>Neighbours</h2>{neighbours}"
        f"<h2>Agreement (overlap set)</h2>{agreement_html}<h3>Per pair of annotators</h3>{pairs}"
        f"<h2>Annotators</h2>{annotators}{_metrics_section(engine, ranked)}"
    ), style=style + CHART_STYLE)  # fmt: skip


def _metrics_section(engine: Engine, ranked: list[Ranked[TeamScore]]) -> str:
    """SSIM and PSNR (``podium wmeval metrics``) beside the human scores, outside the rubric; "" without them."""
    root = stored_media_root(engine)  # read only: a report never fixes where media go
    measured = read_metrics(root / METRICS_FILE) if root is not None else {}
    if not measured:
        return ""
    per_team: dict[str, list[tuple[float, float]]] = {}
    for key, values in measured.items():
        sampled = values["sampled"]
        per_team.setdefault(key.split("/")[0], []).append((float(sampled["ssim"]), float(sampled["psnr"])))
    teams = [r.entry.team for r in ranked if r.entry.team in per_team]
    mean = {team: [sum(column) / len(column) for column in zip(*per_team[team], strict=True)] for team in teams}
    rho = spearman([float(r.entry.final) for r in ranked if r.entry.team in mean], [mean[t][0] for t in teams])
    rows = [[t, f"{mean[t][0]:.3f}", f"{mean[t][1]:.1f}"] for t in teams]
    ratings = [(r.item, r.task, int(r.score), float(measured[f"{r.team}/{r.task}/{r.episode}"]["sampled"]["ssim"]))
               for r in assignments(engine) if r.kind == ItemKind.PRIMARY and r.score is not None
               and f"{r.team}/{r.task}/{r.episode}" in measured]  # fmt: skip
    far = far_from_metric(ratings)
    said = "-" if rho is None else f"{rho:+.2f}"
    return (
        "<h2>Automatic metrics: outside the rubric</h2><p>SSIM and PSNR against the reference, for a second look "
        "only; never part of a score. Rank correlation (Spearman) of the teams' mean SSIM with their final "
        f"scores: {said}.</p>"
        + table(["team", "mean SSIM", "mean PSNR (dB)"], rows)
        + "<h3>Ratings far from the metric</h3>"
        + table(
            ["item", "task", "human score", "metric's place (0-3)"],
            [[key, task, str(score), str(expected)] for key, task, score, expected in far],
        )  # fmt: skip
    )
