"""How each trial of a ``generate`` run ended, kept beside its log (``<TEAM>_raw_<time>.outcomes.json``).

A trial without a response file is only "missing" to the stages after ``generate``; the report needs why: a model
error, a limit, a refused program. Each run writes its trials that ended without a response (verdict and reason);
the report reads the newest run's word on each trial that still has no file anywhere (``trial_status.py``).
Written by ``generation/team.py``, read by the report's statuses and the stages' warnings, so it sits below both.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from podium.core.storage.files import write_atomic

OUTCOMES_SUFFIX = ".outcomes.json"


def write_outcomes(log_path: Path, team: str, failed_trials: Iterable[tuple[str, int, str, str]]) -> Path:
    """Record the trials of a run that ended without a response: (letter, trial, verdict, reason) each."""
    path = log_path.with_name(log_path.name.removesuffix(".log") + OUTCOMES_SUFFIX)
    failed = [
        {"character": character, "trial": number, "verdict": verdict, "reason": reason}
        for character, number, verdict, reason in failed_trials
    ]
    write_atomic(path, json.dumps({"team": team, "trials": failed}, ensure_ascii=False).encode())
    return path


def generation_failures(logs: Path, prefix: str = "") -> dict[tuple[str, str, str], tuple[str, str]]:
    """(``prefix`` + team, letter, trial) → (verdict, reason) of each trial's newest failed run, from ``logs``."""
    failures: dict[tuple[str, str, str], tuple[str, str]] = {}
    for path in sorted(logs.glob(f"*{OUTCOMES_SUFFIX}")) if logs.is_dir() else []:  # oldest first: newest wins
        try:
            record = json.loads(path.read_text("utf-8"))
            for trial in record["trials"]:
                key = (prefix + str(record["team"]), str(trial["character"]), str(trial["trial"]))
                failures[key] = (str(trial["verdict"]), str(trial["reason"]))
        except (OSError, ValueError, KeyError, TypeError):
            continue  # a file podium did not write: its trials stay "missing"
    return failures
