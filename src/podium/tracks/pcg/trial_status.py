"""What happened to each trial, read back from the competition folder alone (for the report).

A report built from one run's events would depend on what that run happened to redo: a rerun skips current
items and a resumed run saw only half of them, so the same files would give different pages. Everything a trial's
status needs is on disk instead. The per-trial stages (extract, build) keep each item's failure in their ledger
under the item's output; the per-character stages (simulate, classify) keep a failed item under its input's path
with the key of the character file it belongs to, which is current only while that key is the character file's
own. The first failure in pipeline order explains a trial; a trial with a file in any stage folder and no
failure is ``ok``; a trial with no file anywhere gets its newest ``generate`` run's verdict and reason, where a run
recorded one (``run_outcomes.py``); the others are left out (the report shows them as missing).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from podium.core.storage.state import StageLedger
from podium.tracks.pcg.folders import TRIAL_FOLDERS
from podium.tracks.pcg.official.rundir import Platform, list_team_dirs, list_visible_files
from podium.tracks.pcg.rules.score import trial_index
from podium.tracks.pcg.run_outcomes import generation_failures

TrialKey = tuple[str, str, str]  # (team, character, trial number)


@dataclass(frozen=True, slots=True)
class TrialStatus:
    """What happened to one trial across the stages: the first failure, or ok."""

    verdict: str
    reason: str


OK = TrialStatus("ok", "")

# stage, the folder its per-item entries sit in, and the per-character output that makes them current (or None)
_STAGES = (
    ("extract", "intermediate", None),
    ("build", "levels", None),
    ("simulate", "levels", "stability"),
    ("classify", "images", "similarity"),
)


def trial_key(team: str, character: str, file_name: str) -> TrialKey | None:
    """The (team, character, trial number) a stage item refers to, from its file name."""
    number = trial_index(file_name)
    return None if number is None else (team, character, str(number))


def trial_statuses(root: Path, platform: Platform = Platform.POSIX, prefix: str = "") -> dict[TrialKey, TrialStatus]:
    """The status of every trial of one official root with a file, by (``prefix`` + team, character, trial)."""
    statuses: dict[TrialKey, TrialStatus] = {}
    for stage, folder, group in _STAGES:
        with StageLedger(root, stage) as ledger:
            outcomes = ledger.outcomes()
        for output, outcome in outcomes.items():
            parts = output.split("/")
            if outcome.failure is None or len(parts) != 4 or parts[1] != folder:
                continue
            team, _, character, name = parts
            if group is not None:
                owner = outcomes.get(f"{team}/{group}/{character}.json")
                if owner is None or owner.key != outcome.key:
                    continue  # from an older version of the character's files
            key = trial_key(prefix + team, character, name)
            if key is not None and key not in statuses:
                statuses[key] = TrialStatus(*outcome.failure)
    for team in list_team_dirs(root, platform):
        for folder in TRIAL_FOLDERS:
            for char_dir in sorted((root / team / folder).glob("*/")):
                for file in list_visible_files(char_dir):
                    key = trial_key(prefix + team, char_dir.name, file.name)
                    if key is not None:
                        statuses.setdefault(key, OK)
    for key, (verdict, reason) in generation_failures(root / "logs", prefix).items():
        statuses.setdefault(key, TrialStatus(verdict, f"generate: {reason}"))  # no file anywhere: generate says why
    return statuses
