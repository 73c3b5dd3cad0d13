"""What a stage command and ``podium pcg evaluate`` say at the end: failures by verdict and reason, warnings, logs.

Items that fail on a contestant's input (no code, a level that intrudes the boundary, a malformed level) are
verdicts, not errors: the run that judged them succeeded and exits 0. So that nobody has to open ``logs/`` to
learn that something failed, the console ends with a short summary: how many items failed, grouped by stage,
verdict and reason (the commonest first), the first few items, the warnings (replaced bytes of a non-UTF-8
response, stray files, missing folders), and the log files that hold every line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from podium.core.reporting.tables import Cell, render_table
from podium.tracks.pcg.stages.driver import StageSummary

SHOWN_REASONS = 8
SHOWN_ITEMS = 5
SHOWN_WARNINGS = 10


def failure_lines(summaries: Sequence[StageSummary]) -> list[str]:
    """The failure summary of one or more stage runs; empty when no item failed."""
    failed = [(summary.stage, event) for summary in summaries for event in summary.failures]
    if not failed:
        return []
    total = sum(len(summary.events) for summary in summaries)
    groups = Counter((stage, event.verdict.value, event.reason) for stage, event in failed)
    rows: list[list[Cell]] = [
        [count, stage, verdict, reason] for (stage, verdict, reason), count in groups.most_common(SHOWN_REASONS)
    ]
    lines = [
        f"failed: {len(failed)} of {total} items, on the contestants' input (judged as failures; the run succeeded)",
        render_table(["items", "stage", "verdict", "reason"], rows),
    ]
    if len(groups) > SHOWN_REASONS:
        lines.append(f"... and {len(groups) - SHOWN_REASONS} more reasons")
    lines.append("first failed items:")
    lines += [
        f"  {event.team}/{event.character}/{event.trial} ({stage}): {event.verdict.value}: {event.reason}"
        for stage, event in failed[:SHOWN_ITEMS]
    ]
    return lines


def warning_lines(summaries: Sequence[StageSummary]) -> list[str]:
    """``warning: ...`` for the first warnings of the runs, and how many more the logs hold."""
    stages_of: dict[str, list[str]] = {}  # one line for the same words from several stages, in first-seen order
    for summary in summaries:
        for warning in summary.warnings:
            stages_of.setdefault(warning, []).append(summary.stage)
    warnings = [(", ".join(dict.fromkeys(stages)), warning) for warning, stages in stages_of.items()]
    several = len({summary.stage for summary in summaries}) > 1  # evaluate: say which stage warned
    lines = [f"warning: {stage}: {w}" if several else f"warning: {w}" for stage, w in warnings[:SHOWN_WARNINGS]]
    if len(warnings) > SHOWN_WARNINGS:
        lines.append(f"warning: ... and {len(warnings) - SHOWN_WARNINGS} more warnings in the logs")
    return lines


def log_lines(summaries: Sequence[StageSummary], *, only_with_news: bool = False) -> list[str]:
    """``log: PATH`` for each log file (with ``only_with_news``, only those of runs that failed or warned)."""
    paths: list[Path] = []
    for summary in summaries:
        if not only_with_news or summary.failures or summary.warnings:
            paths += summary.log_files
    return [f"log: {path}" for path in paths]
