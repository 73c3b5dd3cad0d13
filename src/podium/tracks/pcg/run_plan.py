"""Which trials ``generate`` asked for: ``logs/<TEAM>_raw_<time>.plan.json``, written by each run, read by evaluate.

The official scoring covers every letter and trial of the edition, and podium's result files do the same. A run
that asked for fewer (``--characters A,I --trials 1`` to try a program) is still scored that way, but the console
and the report say what was asked and do not call the rest missing. A team's plan is the union of its runs' plans
(a rerun with more trials asks for more); a team without a plan file (responses that came from elsewhere) has none,
and everything counts for it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from podium.core.storage.files import write_atomic

PLAN_SUFFIX = ".plan.json"
FACT_KEYS = ("edition", "edition_reason", "model", "server")  # what a run was made with (``write_plan``'s facts)


def write_plan(
    log_path: Path, team: str, characters: Sequence[str], trials: int, facts: Mapping[str, str] | None = None
) -> Path:
    """Record beside a run's log which letters and trials it asked for, and what it ran with (edition, model...)."""
    path = log_path.with_name(log_path.name.removesuffix(".log") + PLAN_SUFFIX)
    record = {"team": team, "characters": list(characters), "trials": trials, **(facts or {})}
    write_atomic(path, json.dumps(record).encode())
    return path


@dataclass(frozen=True, slots=True)
class AskedTrials:
    """The letters and trial numbers one team's runs asked for."""

    letters: frozenset[str]
    trials: int  # trials 1..trials of each letter

    def covers(self, character: str, trial: int) -> bool:
        """Whether the trial was asked for."""
        return character in self.letters and 1 <= trial <= self.trials


def asked_trials(logs: Path, prefix: str = "") -> dict[str, AskedTrials]:
    """Each team's asked trials from the plan files in ``logs`` (keys prefixed, as a multi-model report names teams)."""
    asked: dict[str, AskedTrials] = {}
    for path in sorted(logs.glob(f"*{PLAN_SUFFIX}")) if logs.is_dir() else []:
        try:
            record = json.loads(path.read_text("utf-8"))
            team = prefix + str(record["team"])
            letters, trials = frozenset(map(str, record["characters"])), int(record["trials"])
        except (OSError, ValueError, KeyError, TypeError):
            continue  # a file podium did not write: that team counts as unplanned
        before = asked.get(team)
        if before is not None:
            letters, trials = letters | before.letters, max(trials, before.trials)
        asked[team] = AskedTrials(letters, trials)
    return asked


def describe_asked(asked: Mapping[str, AskedTrials]) -> str | None:
    """``asked for 2 letters (A, I) × 1 trial`` (per team where the teams differ), or None without plans."""
    if not asked:
        return None

    def words(plan: AskedTrials) -> str:
        letters = sorted(plan.letters)
        shown = ", ".join(letters)
        return (
            f"{len(letters)} letter{'s' * (len(letters) != 1)} ({shown}) × {plan.trials} "
            f"trial{'s' * (plan.trials != 1)}"
        )

    if len(set(asked.values())) == 1:
        return f"generate asked for {words(next(iter(asked.values())))}"
    return "generate asked for " + "; ".join(f"{team}: {words(plan)}" for team, plan in sorted(asked.items()))


def generation_facts(logs: Path, prefix: str = "") -> dict[str, dict[str, str]]:
    """Each team's newest run's facts from its plan (edition, model, server; ``edition_choice.run_facts``)."""
    facts: dict[str, dict[str, str]] = {}
    for path in sorted(logs.glob(f"*{PLAN_SUFFIX}")) if logs.is_dir() else []:
        try:
            record = json.loads(path.read_text("utf-8"))
            if "model" in record:
                facts[prefix + str(record["team"])] = {k: str(record.get(k, "")) for k in FACT_KEYS}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
    return facts


def describe_generation(facts: Mapping[str, Mapping[str, str]]) -> tuple[str, ...]:
    """One line per model and server: ``model M on server S, edition E (why): teams a, b``."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for team, fact in sorted(facts.items()):
        groups.setdefault(tuple(fact.get(k, "") for k in FACT_KEYS), []).append(team)
    return tuple(
        f"model {model} on server {server}, edition {edition} ({why}): {', '.join(teams)}"
        for (edition, why, model, server), teams in groups.items()
    )
