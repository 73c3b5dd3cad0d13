"""Small inline SVG charts for static report pages: intervals per entry, bars, and distributions.

Drawn by hand as text rather than by a plotting library (see ``docs/design/pcg-report.md``): a report must be one
self-contained file whose bytes depend on its data alone, and the three charts a leaderboard needs take less code
here than configuring a library would, with no font embedding, no second rendering engine and no new dependency.
Every chart is a ``<figure>`` holding an ``<svg>`` with a ``<title>`` per mark (the value on hover) and a
``viewBox``, so it scales with the page. Colours come from CSS variables with fallbacks, so a page may theme them.
The pcg report and wmeval's report draw them (``markup.py`` is the rest of the one HTML layer).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from podium.core.reporting.markup import esc

_FONT = "font:11px system-ui,sans-serif"
_LABEL_WIDTH = 110
_ROW = 18


@dataclass(frozen=True, slots=True)
class IntervalRow:
    """One entry of an interval chart: a label, a point and its interval (``low`` ≤ ``value`` ≤ ``high``)."""

    label: str
    value: float
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True, slots=True)
class Bar:
    """One bar: a label, a value and an optional hover note."""

    label: str
    value: float
    note: str = ""


def _num(value: float) -> str:
    """A coordinate with at most one decimal, so equal data give equal bytes across platforms."""
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _figure(svg: str, caption: str) -> str:
    return f"<figure class='chart'>{svg}<figcaption>{esc(caption)}</figcaption></figure>"


def _ticks(top: float, count: int = 4) -> list[float]:
    """Round tick values from 0 to at least ``top``."""
    if top <= 0:
        return [0.0]
    raw = top / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    return [step * i for i in range(count + 1) if step * i <= top * 1.0001 + step]


def _axis(ticks: Sequence[float], x0: float, scale: float, y_top: float, y_bottom: float, digits: int) -> list[str]:
    parts = []
    for tick in ticks:
        x = x0 + tick * scale
        parts.append(f"<line x1='{_num(x)}' x2='{_num(x)}' y1='{_num(y_top)}' y2='{_num(y_bottom)}' class='grid'/>")
        parts.append(f"<text x='{_num(x)}' y='{_num(y_bottom + 12)}' text-anchor='middle'>{tick:.{digits}f}</text>")
    return parts


def interval_chart(rows: Sequence[IntervalRow], caption: str, *, digits: int = 1, width: int = 560) -> str:
    """A dot per row with a horizontal line over its interval, rows top to bottom in the given order."""
    top = max([r.high if r.high is not None else r.value for r in rows] + [0.0])
    ticks = _ticks(top)
    plot = width - _LABEL_WIDTH - 20
    scale = plot / (ticks[-1] or 1)
    height = len(rows) * _ROW + 24
    parts = [f"<svg viewBox='0 0 {width} {height}' width='{width}' role='img' style='{_FONT}'>"]
    parts += _axis(ticks, _LABEL_WIDTH, scale, 0, height - 20, digits)
    for i, row in enumerate(rows):
        y = i * _ROW + _ROW / 2
        parts.append(f"<text x='{_LABEL_WIDTH - 6}' y='{_num(y + 4)}' text-anchor='end'>{esc(row.label)}</text>")
        note = f"{row.label}: {row.value:.{digits}f}"
        if row.low is not None and row.high is not None:
            x1, x2 = _LABEL_WIDTH + row.low * scale, _LABEL_WIDTH + row.high * scale
            parts.append(f"<line x1='{_num(x1)}' x2='{_num(x2)}' y1='{_num(y)}' y2='{_num(y)}' class='range'/>")
            note += f" (95 % interval {row.low:.{digits}f} – {row.high:.{digits}f})"
        cx = _LABEL_WIDTH + row.value * scale
        parts.append(f"<circle cx='{_num(cx)}' cy='{_num(y)}' r='4' class='mark'><title>{esc(note)}</title></circle>")
    parts.append("</svg>")
    return _figure("".join(parts), caption)


def bar_chart(bars: Sequence[Bar], caption: str, *, digits: int = 2, width: int = 560) -> str:
    """Vertical bars side by side, one per entry, with the value above each."""
    top = max([b.value for b in bars] + [0.0])
    ticks = _ticks(top)
    height, base = 160, 130
    slot = (width - 40) / max(len(bars), 1)
    scale = (base - 14) / (ticks[-1] or 1)
    parts = [f"<svg viewBox='0 0 {width} {height}' width='{width}' role='img' style='{_FONT}'>"]
    for tick in ticks:
        y = base - tick * scale
        parts.append(f"<line x1='30' x2='{width}' y1='{_num(y)}' y2='{_num(y)}' class='grid'/>")
        parts.append(f"<text x='26' y='{_num(y + 4)}' text-anchor='end'>{tick:.{digits}f}</text>")
    for i, bar in enumerate(bars):
        x, h = 40 + i * slot, bar.value * scale
        note = f"{bar.label}: {bar.value:.{digits}f}" + (f" ({bar.note})" if bar.note else "")
        parts.append(
            f"<rect x='{_num(x + slot * 0.15)}' y='{_num(base - h)}' width='{_num(slot * 0.7)}' height='{_num(h)}' "
            f"class='mark'><title>{esc(note)}</title></rect>"
        )
        parts.append(f"<text x='{_num(x + slot / 2)}' y='{base + 14}' text-anchor='middle'>{esc(bar.label)}</text>")
    parts.append("</svg>")
    return _figure("".join(parts), caption)


def histogram(
    values: Sequence[float], caption: str, *, low: float = 0.0, high: float = 1.0, bins: int = 10, width: int = 270
) -> str:
    """Counts of ``values`` in ``bins`` equal bins over [low, high] (the last bin includes ``high``)."""
    counts = [0] * bins
    span = (high - low) or 1.0
    for value in values:
        counts[min(bins - 1, max(0, int((value - low) / span * bins)))] += 1
    top = max(counts + [1])
    height, base, left = 140, 110, 34
    slot = (width - left - 6) / bins
    scale = (base - 10) / top
    parts = [f"<svg viewBox='0 0 {width} {height}' width='{width}' role='img' style='{_FONT}'>"]
    parts.append(f"<text x='{left - 4}' y='14' text-anchor='end'>{top}</text>")
    parts.append(f"<line x1='{left}' x2='{width}' y1='{base}' y2='{base}' class='grid'/>")
    for i, count in enumerate(counts):
        x, h = left + i * slot, count * scale
        edge_low, edge_high = low + span * i / bins, low + span * (i + 1) / bins
        note = f"{edge_low:.2f}–{edge_high:.2f}: {count}"
        parts.append(
            f"<rect x='{_num(x + 1)}' y='{_num(base - h)}' width='{_num(slot - 2)}' height='{_num(h)}' "
            f"class='mark'><title>{esc(note)}</title></rect>"
        )
    for tick in (low, (low + high) / 2, high):
        x = left + (tick - low) / span * (width - left - 6)
        parts.append(f"<text x='{_num(x)}' y='{base + 14}' text-anchor='middle'>{tick:g}</text>")
    parts.append("</svg>")
    return _figure("".join(parts), caption)


CHART_STYLE = (
    "figure.chart{display:inline-block;margin:0 1.5em 1em 0;vertical-align:top}"
    "figure.chart svg{max-width:100%;height:auto;display:block}figure.chart text{fill:#333}"
    "figure.chart .grid{stroke:#ddd;stroke-width:1}figure.chart .range{stroke:var(--range,#7a9cc6);stroke-width:3}"
    "figure.chart .mark{fill:var(--mark,#2b5d9c)}figcaption{font-size:85%;color:#555;max-width:36em}"
)
