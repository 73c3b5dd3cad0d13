"""``result/report.html``: the leaderboard and everything behind it, in one static page.

Sections: leaderboard with 95 % bootstrap intervals (and which neighbours cannot be told apart), a team × letter
heat map of character scores, stability / similarity / diversity means per team, the weight of each letter, and
per team the level image of every trial with its verdict and reason. Images are linked, not embedded (the page
stays small; ``loading="lazy"`` keeps it fast), so the report lives beside the team folders it points into.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path

from podium.core.storage.files import write_atomic
from podium.tracks.pcg.bootstrap import Interval
from podium.tracks.pcg.score import CompetitionScores
from podium.tracks.pcg.stages.score import ScoreRun
from podium.tracks.pcg.trial_status import TrialStatus

_STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222}h1{margin-bottom:0}
table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}th{background:#f3f3f3}td.t{text-align:left}
.heat td{width:2.2em;font-size:80%}.trials{display:flex;flex-wrap:wrap;gap:4px}.trial{width:96px;font-size:70%}
.trial img{width:96px;height:96px;border:1px solid #ddd}.bad{color:#b00}.note{color:#666;font-size:90%}
"""


def _fmt(value: Decimal | float, digits: int = 4) -> str:
    return f"{float(value):.{digits}f}"


def _heat_colour(value: float, top: float) -> str:
    share = 0.0 if top <= 0 else min(1.0, value / top)
    return f"background:rgb({int(255 - 155 * share)},{int(255 - 40 * share)},{int(255 - 155 * share)})"


def render_report(
    run: ScoreRun,
    intervals: Mapping[str, Interval],
    statuses: Mapping[tuple[str, str, str], TrialStatus],
    image_links: Mapping[tuple[str, str, str], str],
    title: str,
) -> str:
    """The report page as HTML text."""
    out = [f"<!doctype html><meta charset='utf-8'><title>{html.escape(title)}</title><style>{_STYLE}</style>"]
    out.append(f"<h1>{html.escape(title)}</h1><p class='note'>competition score {run.competition}</p>")
    out += _leaderboard(run, intervals)
    for model, scores in (run.scores or {}).items():
        label = f" — model {html.escape(model)}" if model else ""
        out += _heat_map(scores, label)
        out += _breakdown(scores, label)
        out += _weights(scores, label)
        out += _trials(scores, statuses, image_links, model, label)
    for warning in run.warnings:
        out.append(f"<p class='bad'>warning: {html.escape(warning)}</p>")
    return "\n".join(out)


def _leaderboard(run: ScoreRun, intervals: Mapping[str, Interval]) -> list[str]:
    rows = ["<h2>Leaderboard</h2><table><tr><th>rank</th><th>team</th><th>normalized</th><th>95 % interval</th>"
            "<th>prompt score</th><th>note</th></tr>"]  # fmt: skip
    board = run.leaderboard
    for position, team in enumerate(board):
        interval = intervals.get(team.team)
        shown = f"{interval.low:.2f} – {interval.high:.2f}" if interval else "–"
        notes = []
        if team.decided_by:
            notes.append(f"placed by {team.decided_by}")
        neighbours = [board[i] for i in (position - 1, position + 1) if 0 <= i < len(board)]
        for other in neighbours:
            other_interval = intervals.get(other.team)
            if interval and other_interval and interval.overlaps(other_interval):
                notes.append(f"cannot be told apart from {html.escape(other.team)}")
        rows.append(
            f"<tr><td>{team.rank}</td><td class='t'>{html.escape(team.team)}</td><td>{_fmt(team.normalized, 2)}</td>"
            f"<td>{shown}</td><td>{_fmt(team.prompt, 6)}</td><td class='t'>{'; '.join(notes)}</td></tr>"
        )
    rows.append("</table><p class='note'>Intervals: 1,000 bootstrap resamples of each team's trials per letter "
                "(weights fixed); overlapping neighbours are within the noise of 10 trials.</p>")  # fmt: skip
    return rows


def _heat_map(scores: CompetitionScores, label: str) -> list[str]:
    letters = list(dict.fromkeys(c.character for c in scores.characters))
    top = max((float(c.score) for c in scores.characters), default=0.0)
    out = [f"<h2>Character scores{label}</h2><table class='heat'><tr><th>team</th>"]
    out.append("".join(f"<th>{c}</th>" for c in letters) + "</tr>")
    by_team: dict[str, list[float]] = {}
    for c in scores.characters:
        by_team.setdefault(c.team, []).append(float(c.score))
    for team, values in by_team.items():
        cells = "".join(f"<td style='{_heat_colour(v, top)}' title='{v:.6f}'>{v * 1000:.1f}</td>" for v in values)
        out.append(f"<tr><td class='t'>{html.escape(team)}</td>{cells}</tr>")
    out.append("</table><p class='note'>Cells show the character score × 1000; darker is higher.</p>")
    return out


def _breakdown(scores: CompetitionScores, label: str) -> list[str]:
    out = [f"<h2>Stability, similarity, diversity{label}</h2><table><tr><th>team</th><th>mean stability</th>"
           "<th>mean similarity</th><th>mean diversity</th><th>prompt score</th></tr>"]  # fmt: skip
    prompts = {p.team: p.prompt for p in scores.prompts}
    groups: dict[str, list[tuple[float, float, float]]] = {}
    for c in scores.characters:
        groups.setdefault(c.team, []).append((float(c.mean_stability), float(c.mean_similarity), float(c.diversity)))
    for team, rows in groups.items():
        n = len(rows)
        sta, sim, div = (sum(r[i] for r in rows) / n for i in range(3))
        out.append(
            f"<tr><td class='t'>{html.escape(team)}</td><td>{sta:.3f}</td><td>{sim:.3f}</td><td>{div:.3f}</td>"
            f"<td>{_fmt(prompts[team], 6)}</td></tr>"
        )
    out.append("</table>")
    return out


def _weights(scores: CompetitionScores, label: str) -> list[str]:
    out = [f"<h2>Letter weights{label}</h2><table><tr><th>letter</th><th>weight</th><th>stability</th>"
           "<th>similarity</th><th>diversity</th></tr>"]  # fmt: skip
    for w in scores.weights:
        diversity = _fmt(w.diversity) if w.diversity is not None else "–"
        out.append(
            f"<tr><td>{w.character}</td><td>{_fmt(w.weight)}</td><td>{_fmt(w.stability)}</td>"
            f"<td>{_fmt(w.similarity)}</td><td>{diversity}</td></tr>"
        )
    out.append("</table>")
    return out


def _trials(
    scores: CompetitionScores,
    statuses: Mapping[tuple[str, str, str], TrialStatus],
    image_links: Mapping[tuple[str, str, str], str],
    model: str,
    label: str,
) -> list[str]:
    out = [f"<h2>Trials{label}</h2>"]
    by_team: dict[str, list[tuple[str, int, Decimal, Decimal, Decimal]]] = {}
    for t in scores.trials:
        by_team.setdefault(t.team, []).append((t.character, t.trial, t.score, t.stability, t.similarity))
    for team, trials in by_team.items():
        out.append(f"<details><summary>{html.escape(team)}</summary><div class='trials'>")
        for character, trial, score, stability, similarity in trials:
            key = (f"{model}/{team}" if model else team, character, str(trial))
            status = statuses.get(key, TrialStatus("missing", "no input for this trial"))
            link = image_links.get(key)
            picture = (
                f"<img loading='lazy' src='{html.escape(link)}' alt=''>" if link else "<div style='height:96px'></div>"
            )
            css = "" if status.verdict == "ok" else " class='bad'"
            out.append(
                f"<div class='trial'>{picture}<div>{character}{trial}: {_fmt(score, 4)}</div>"
                f"<div>sta {_fmt(stability, 2)} sim {_fmt(similarity, 2)}</div>"
                f"<div{css} title='{html.escape(status.reason)}'>{html.escape(status.verdict)}</div></div>"
            )
        out.append("</div></details>")
    return out


def write_report(path: Path, text: str) -> None:
    """Write the report page."""
    write_atomic(path, text.encode("utf-8"))


def relative_link(report_dir: Path, target: Path) -> str:
    """A relative URL from the report's folder to ``target``."""
    parts_from, parts_to = report_dir.resolve().parts, target.resolve().parts
    common = 0
    while common < min(len(parts_from), len(parts_to)) and parts_from[common] == parts_to[common]:
        common += 1
    return "/".join([".."] * (len(parts_from) - common) + list(parts_to[common:]))
