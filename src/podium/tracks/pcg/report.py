"""``result/report.html``: the leaderboard and everything behind it, in one self-contained page you can e-mail.

The page opens with its provenance (edition, podium version, the classifier with its identity and caveat, the
physics with its measured agreement), then the leaderboard by rank with 95 % bootstrap intervals, charts (scores
with intervals, per-letter difficulty, stability and similarity distributions), the team × letter table, means per
team, the letter weights and a gallery of every trial, filterable by team, letter and verdict. Only the letters the
competition has appear. Thumbnails are embedded (``data:`` URIs), so the file needs nothing beside it; they sit in
one JSON block per team, and the tiles are built when a team's section opens, so a closed section costs its bytes
but no image decoding (``docs/design/pcg-report.md``). The page is built from the files alone: the same files give
the same bytes.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from importlib.resources import files
from pathlib import Path

from podium.core.ranking.bootstrap import Uncertainty
from podium.core.reporting.charts import CHART_STYLE, Bar, IntervalRow, bar_chart, histogram, interval_chart
from podium.core.reporting.markup import document, esc
from podium.core.storage.files import write_atomic
from podium.tracks.pcg.provenance import Provenance
from podium.tracks.pcg.rules.score import CompetitionScores, TrialScore
from podium.tracks.pcg.run_plan import AskedTrials
from podium.tracks.pcg.standings import ScoreRun
from podium.tracks.pcg.trial_status import TrialKey, TrialStatus

NOT_APPLICABLE = "–"  # a figure the edition does not have (diversity before 2024), everywhere the same

_STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em 2em;color:#222;max-width:1200px}h1{margin-bottom:.2em}
table{border-collapse:collapse;margin:.6em 0}td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}
th{background:#f3f3f3}td.t,th.t{text-align:left}.note{color:#555;font-size:90%}
.prov{border:1px solid #ccc;background:#fafafa;padding:.4em 1em;margin:.8em 0}.prov dt{font-weight:600;float:left;
clear:left;width:9em}.prov dd{margin:0 0 .3em 9.5em}.warn{background:#fff4e0;border-left:4px solid #e08a00;
padding:.4em .8em;margin:.3em 0}code{font-size:90%;word-break:break-all}
.heat td{min-width:2.4em;font-size:85%}.filters{position:sticky;top:0;background:#fff;padding:.4em 0;z-index:1}
.filters label{margin-right:1em}details.team{margin:.3em 0}details.team summary{cursor:pointer;padding:2px 0}
.trials{display:flex;flex-wrap:wrap;gap:4px;margin:.3em 0 .8em}.trial{width:98px;font-size:70%;line-height:1.25}
.trial img,.trial .noimg{display:block;width:96px;height:96px;border:1px solid #ddd}.trial .noimg{color:#999;
text-align:center;line-height:96px}.failed .verdict{color:#b00}.bad{color:#b00}
"""


@dataclass(frozen=True, slots=True)
class ReportInput:
    """Everything the page shows, read from the competition folder."""

    run: ScoreRun
    provenance: Provenance
    letters: tuple[str, ...]  # the letters the competition has, in order
    uncertainty: Uncertainty | None  # the leaderboard's bootstrap: intervals and separable neighbours
    statuses: Mapping[TrialKey, TrialStatus]
    thumbnails: Mapping[TrialKey, bytes]  # small PNGs by (team, letter, trial)
    title: str
    asked: Mapping[str, AskedTrials] = field(default_factory=dict)  # by team: what generate asked, where recorded


def _fixed(value: Decimal | float, digits: int) -> str:
    return f"{float(value):.{digits}f}"


def render_report(report: ReportInput) -> str:
    """The report page as HTML text."""
    run = report.run
    out = [f"<h1>{esc(report.title)}</h1>"]
    out += _provenance(report.provenance, run)
    out += _leaderboard(run, report.uncertainty)
    order = {team.team: i for i, team in enumerate(run.leaderboard)}
    galleries: list[tuple[str, CompetitionScores]] = []
    for model, scores in (run.scores or {}).items():
        label = f" — model {esc(model)}" if model else ""
        out += _charts(run, scores, report, label)
        out += _heat_map(scores, report.letters, order, label)
        out += _breakdown(scores, report.letters, order, label)
        out += _weights(scores, report.letters, label)
        galleries.append((model, scores))
    out += _gallery(galleries, report, order)
    for warning in run.warnings:
        out.append(f"<p class='bad'>warning: {esc(warning)}</p>")
    script = files("podium.tracks.pcg").joinpath("report.js").read_text("utf-8")
    out.append(f"<script>{script}</script>")  # a static file, opened from disk: its script travels inside it
    return document(report.title, "\n".join(out), style=_STYLE + CHART_STYLE)


def _provenance(provenance: Provenance, run: ScoreRun) -> list[str]:
    classifier = provenance.classifier
    caveat = f"<div class='warn'>{esc(classifier.caveat)}</div>" if classifier.warn else esc(classifier.caveat)
    physics = esc(provenance.physics) + (f"<br>{esc(provenance.physics_agreement)}" if provenance.physics_agreement
                                          else "")  # fmt: skip
    return [
        "<section class='prov' id='provenance'><dl>",
        f"<dt>edition</dt><dd>{provenance.edition}</dd>",
        f"<dt>podium</dt><dd>{esc(provenance.podium_version)}</dd>",
        f"<dt>similarity</dt><dd>classifier <code>{esc(classifier.spec)}</code>, weights "
        f"<code>{esc(classifier.identity)}</code>{caveat}</dd>",
        f"<dt>stability</dt><dd>{physics}</dd>",
        *(
            ["<dt>responses</dt><dd>" + "<br>".join(map(esc, provenance.generation)) + "</dd>"]
            if provenance.generation
            else []
        ),  # fmt: skip
        *(
            ["<dt>not on the board</dt><dd class='bad'>" + "<br>".join(map(esc, provenance.unscored)) + "</dd>"]
            if provenance.unscored
            else []
        ),  # fmt: skip
        f"<dt>competition score</dt><dd>{_fixed(run.competition, 6)} (the sum of every prompt score)</dd>",
        *_programs(provenance),
        "</dl></section>",
    ]


def _programs(provenance: Provenance) -> list[str]:
    """What each team's program ran with (``generate``'s environment records), when podium generated the responses."""
    if not provenance.programs:
        return []
    rows = ["<table><tr><th class='t'>team</th><th class='t'>submission</th><th class='t'>entry</th>"
            "<th class='t'>installed</th><th class='t'>environment</th></tr>"]  # fmt: skip
    for program in provenance.programs:
        installed = esc(", ".join(program.installed) or "nothing") if program.error is None else (
            f"<span class='bad'>{esc(program.error)}</span>")  # fmt: skip
        environment = f"{esc(program.key) or '-'} ({esc(program.python)})" if program.python else "-"
        rows.append(f"<tr><td class='t'>{esc(program.team)}</td><td class='t'><code>{esc(program.digest[:19])}"
                    f"</code></td><td class='t'>{esc(program.entry)}</td><td class='t'>{installed}</td>"
                    f"<td class='t'>{environment}</td></tr>")  # fmt: skip
    return ["<dt>programs</dt><dd>", *rows, "</table></dd>"]


def _leaderboard(run: ScoreRun, uncertainty: Uncertainty | None) -> list[str]:
    rows = ["<h2>Leaderboard</h2><table><tr><th>rank</th><th class='t'>team</th><th>normalized</th>"
            "<th>95 % interval</th><th>prompt score</th><th class='t'>note</th></tr>"]  # fmt: skip
    board = run.leaderboard
    for position, team in enumerate(board):
        interval = uncertainty.intervals.get(team.team) if uncertainty else None
        shown = f"{interval.low:.2f} – {interval.high:.2f}" if interval else NOT_APPLICABLE
        notes = [f"placed by {team.decided_by}"] if team.decided_by else []
        for other in (board[i] for i in (position - 1, position + 1) if 0 <= i < len(board)):
            if uncertainty is not None and uncertainty.apart(team.team, other.team) is False:
                notes.append(f"cannot be told apart from {esc(other.team)}")
        rows.append(
            f"<tr><td>{team.rank}</td><td class='t'>{esc(team.team)}</td><td>{_fixed(team.normalized, 2)}</td>"
            f"<td>{shown}</td><td>{_fixed(team.prompt, 6)}</td><td class='t'>{'; '.join(notes)}</td></tr>"
        )
    rows.append("</table><p class='note'>normalized: the team's share of the competition score, in percent. "
                "Intervals: 1,000 paired bootstrap resamples of the trial numbers within each letter, the same for "
                "every team (weights fixed); two neighbours cannot be told apart when the interval of their "
                "difference contains 0.</p>")  # fmt: skip
    return rows


def _present(scores: CompetitionScores, letters: Sequence[str]) -> list[TrialScore]:
    wanted = set(letters)
    return [t for t in scores.trials if t.character in wanted]


def _charts(run: ScoreRun, scores: CompetitionScores, report: ReportInput, label: str) -> list[str]:
    out = [f"<h2>At a glance{label}</h2>"]
    normalized = {p.team: float(p.normalized) for p in scores.prompts}
    rows = []
    for team in run.leaderboard:
        if team.team in normalized:
            interval = report.uncertainty.intervals.get(team.team) if report.uncertainty else None
            low, high = (interval.low, interval.high) if interval else (None, None)
            rows.append(IntervalRow(team.team, normalized[team.team], low, high))
    if rows:
        out.append(interval_chart(rows, "Normalized score per team (percent), with its 95 % bootstrap interval."))
    trials = _present(scores, report.letters)
    bars = []
    for letter in report.letters:
        values = [float(t.stability) * float(t.similarity) for t in trials if t.character == letter]
        if values:
            bars.append(Bar(letter, sum(values) / len(values), f"{len(values)} trials"))
    if bars:
        out.append(bar_chart(bars, "Per-letter difficulty: mean stability × similarity over every team's trials "
                             "(before the letter's weight); lower is harder.", digits=2))  # fmt: skip
    out.append(histogram([float(t.stability) for t in trials], "Stability of every trial (1 = stood still)."))
    out.append(histogram([float(t.similarity) for t in trials], "Similarity of every trial to its target letter."))
    return out


def _heat_colour(value: float, top: float) -> str:
    share = 0.0 if top <= 0 else min(1.0, value / top)
    return f"background:rgb({int(255 - 155 * share)},{int(255 - 40 * share)},{int(255 - 155 * share)})"


def _by_rank(teams: Sequence[str], order: Mapping[str, int]) -> list[str]:
    return sorted(teams, key=lambda team: (order.get(team, len(order)), team))


def _heat_map(scores: CompetitionScores, letters: Sequence[str], order: Mapping[str, int], label: str) -> list[str]:
    wanted = set(letters)
    cells = {(c.team, c.character): float(c.score) for c in scores.characters if c.character in wanted}
    top = max(cells.values(), default=0.0)
    out = [f"<h2>Character scores{label}</h2><table class='heat'><tr><th class='t'>team</th>"]
    out.append("".join(f"<th>{esc(c)}</th>" for c in letters) + "</tr>")
    for team in _by_rank(list(dict.fromkeys(c.team for c in scores.characters)), order):
        row = "".join(
            f"<td style='{_heat_colour(v, top)}' title='{v:.6f}'>{v * 1000:.2f}</td>"
            for v in (cells.get((team, letter), 0.0) for letter in letters)
        )
        out.append(f"<tr><td class='t'>{esc(team)}</td>{row}</tr>")
    out.append("</table><p class='note'>Cells: the character score × 1000 (the mean over its trials of weight × "
               "stability × similarity, times diversity where the edition has it); darker is higher. Teams by rank."
               "</p>")  # fmt: skip
    return out


def _breakdown(scores: CompetitionScores, letters: Sequence[str], order: Mapping[str, int], label: str) -> list[str]:
    with_diversity = any(w.diversity is not None for w in scores.weights)
    out = [f"<h2>Stability, similarity, diversity{label}</h2><table><tr><th class='t'>team</th><th>mean stability"
           "</th><th>mean similarity</th><th>mean diversity</th><th>prompt score</th></tr>"]  # fmt: skip
    prompts = {p.team: p.prompt for p in scores.prompts}
    wanted = set(letters)
    groups: dict[str, list[tuple[float, float, float]]] = {}
    for c in scores.characters:
        if c.character in wanted:
            row = (float(c.mean_stability), float(c.mean_similarity), float(c.diversity))
            groups.setdefault(c.team, []).append(row)
    for team in _by_rank(list(groups), order):
        rows = groups[team]
        sta, sim, div = (sum(r[i] for r in rows) / len(rows) for i in range(3))
        shown_div = f"{div:.3f}" if with_diversity else NOT_APPLICABLE
        out.append(
            f"<tr><td class='t'>{esc(team)}</td><td>{sta:.3f}</td><td>{sim:.3f}</td><td>{shown_div}</td>"
            f"<td>{_fixed(prompts[team], 6)}</td></tr>"
        )
    note = "" if with_diversity else f" Diversity is not part of this edition's rules ({NOT_APPLICABLE})."
    out.append(f"</table><p class='note'>Means over the competition's letters.{note}</p>")
    return out


def _weights(scores: CompetitionScores, letters: Sequence[str], label: str) -> list[str]:
    out = [f"<h2>Letter weights{label}</h2><table><tr><th>letter</th><th>weight</th><th>stability factor</th>"
           "<th>similarity factor</th><th>diversity factor</th></tr>"]  # fmt: skip
    wanted = set(letters)
    for w in scores.weights:
        if w.character not in wanted:
            continue
        diversity = _fixed(w.diversity, 3) if w.diversity is not None else NOT_APPLICABLE
        out.append(
            f"<tr><td>{esc(w.character)}</td><td>{_fixed(w.weight, 3)}</td><td>{_fixed(w.stability, 3)}</td>"
            f"<td>{_fixed(w.similarity, 3)}</td><td>{diversity}</td></tr>"
        )
    out.append("</table><p class='note'>weight = the product of the factors; a factor is 1 − the mean over all "
               "teams' trials (at least 1/26), so letters every team finds hard weigh more.</p>")  # fmt: skip
    return out


def _gallery(
    galleries: Sequence[tuple[str, CompetitionScores]], report: ReportInput, order: Mapping[str, int]
) -> list[str]:
    sections: list[tuple[str, list[list[str]]]] = []
    for model, scores in galleries:
        by_team: dict[str, list[TrialScore]] = {}
        for t in _present(scores, report.letters):
            name = f"{model}/{t.team}" if model else t.team
            plan = report.asked.get(name)
            asked = plan is None or plan.covers(t.character, t.trial)
            if asked or (name, t.character, str(t.trial)) in report.statuses:  # a trial not asked is not missing
                by_team.setdefault(t.team, []).append(t)
        for team in _by_rank(list(by_team), order):
            name = f"{model}/{team}" if model else team
            sections.append((name, [_tile(t, name, report) for t in by_team[team]]))
    verdicts = sorted({tile[5] for _, tiles in sections for tile in tiles}, key=lambda v: (v != "ok", v))
    out = ["<h2>Trials</h2><div class='filters'>", _select("f-team", "team", [name for name, _ in sections])]
    out += [_select("f-letter", "letter", report.letters), _select("f-verdict", "verdict", verdicts), "</div>"]
    out.append("<noscript><p class='bad'>The gallery needs JavaScript to show the level images.</p></noscript>")
    for index, (name, tiles) in enumerate(sections):
        counts: dict[str, int] = {}
        for tile in tiles:
            counts[tile[5]] = counts.get(tile[5], 0) + 1
        summary = ", ".join(f"{n} {v}" for v, n in sorted(counts.items(), key=lambda item: (item[0] != "ok", item)))
        blob = json.dumps(tiles, separators=(",", ":"), ensure_ascii=True).replace("</", "<\\/")
        out.append(
            f"<details class='team' data-team='{esc(name)}' data-blob='t{index}'{' open' if index == 0 else ''}>"
            f"<summary><b>{esc(name)}</b> — {len(tiles)} trials: {esc(summary)} · <span class='shown'>"
            f"{len(tiles)} shown</span></summary><div class='trials'></div></details>"
            f"<script type='application/json' id='t{index}'>{blob}</script>"
        )
    out.append("<p class='note'>Thumbnails of the level images podium rendered (96 px); hover a verdict for its "
               "reason. The first team's trials are open; the others are built when opened.</p>")  # fmt: skip
    return out


def _tile(trial: TrialScore, name: str, report: ReportInput) -> list[str]:
    """One trial for the gallery: letter, number, score, stability, similarity, verdict, reason, PNG (base64)."""
    key = (name, trial.character, str(trial.trial))
    status = report.statuses.get(key, TrialStatus("missing", "no input for this trial"))
    png = report.thumbnails.get(key)
    image = base64.b64encode(png).decode("ascii") if png else ""
    return [trial.character, str(trial.trial), _fixed(trial.score, 4), _fixed(trial.stability, 2),
            _fixed(trial.similarity, 2), status.verdict, status.reason, image]  # fmt: skip


def _select(element_id: str, label: str, values: Sequence[str]) -> str:
    options = "".join(f"<option value='{esc(v)}'>{esc(v)}</option>" for v in values)
    return f"<label>{label} <select id='{element_id}'><option value=''>all</option>{options}</select></label>"


def write_report(path: Path, text: str) -> None:
    """Write the report page."""
    write_atomic(path, text.encode("utf-8"))
