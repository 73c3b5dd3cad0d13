"""Published leaderboards: a revealed problem's board is the audited record, changed only by audited amendments.

At reveal the ``revealed`` audit entry stores the problem's board: its CSV, its records and the users left out
because they were disabled then. From then on every reader (the API, the pages, the command line and its exports)
serves that record, never a board recomputed from rows, which can be edited. A later change is an ``amended`` entry
holding a new version of the board beside the old ones, with its reason: disqualifying a user or a submission
removes that row, and no other score is recomputed (the diversity bonuses stay as finalised at the freeze); the rows
below move up by the rows removed above them (docs/rules/dojo-platform.md §2, citing the scoring rules §9).

``check_versions`` checks a problem's versions: the first against the board recomputed from the rows (with the
users left out as recorded), each amendment against the version before it with its rows removed. ``replay`` and
``verify-audit`` report what it finds, naming the rows that differ.

A ``revealed`` entry written before boards were records holds the CSV alone; its records are read from the CSV.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from podium.core.clock import parse_utc
from podium.core.ranking.leaderboard import Ranked
from podium.core.storage.audit import AuditEntry, audit_payload
from podium.tracks.dojo.standings import ScoredSubmission, problem_csv

BOARD_KINDS = ("revealed", "amended")


@dataclass(frozen=True, slots=True)
class BoardVersion:
    """One published version of a problem's board: 1 as revealed, then one per amendment."""

    version: int
    at: str
    records: tuple[dict[str, Any], ...]  # keyed by PROBLEM_HEADER, JSON's own types (``problem_records``)
    csv: str
    reason: str = ""  # why it was amended ("" for the board as revealed)
    removed: tuple[dict[str, Any], ...] = ()  # the rows an amendment took out
    excluded_users: tuple[str, ...] | None = None  # as revealed: users disabled then (None: not recorded)


@dataclass(frozen=True, slots=True)
class Amendment:
    """What an operator takes off a published board: a user's row, or the row of one submission."""

    reason: str
    user: str | None = None
    submission: int | None = None

    def matches(self, record: dict[str, Any]) -> bool:
        """Whether ``record`` is a row this amendment takes out."""
        return bool(record["user"] == self.user or record["submission"] == self.submission)


def versions_of(entries: Iterable[AuditEntry], slug: str, season: str) -> list[BoardVersion]:
    """The published versions of problem ``slug`` of ``season``, oldest first, from its audit entries.

    An entry that names no season (one written before entries did) is taken to be the problem's.
    """
    versions: list[BoardVersion] = []
    for entry in entries:
        if entry.kind not in BOARD_KINDS:
            continue
        payload = audit_payload(entry)
        if payload.get("problem") != slug or payload.get("season", season) != season:
            continue
        if entry.kind == "revealed":
            versions = []  # a problem is revealed once; should it be again, the newest reveal starts anew
        board = str(payload["leaderboard_csv"])
        records = payload.get("leaderboard")
        excluded = payload.get("excluded_users")
        versions.append(
            BoardVersion(
                version=len(versions) + 1,
                at=entry.at,
                records=tuple(records) if records is not None else records_from_csv(board),
                csv=board,
                reason=str(payload.get("reason", "")),
                removed=tuple(payload.get("removed", ())),
                excluded_users=tuple(excluded) if excluded is not None else None,
            )
        )
    return versions


def records_from_csv(board: str) -> tuple[dict[str, Any], ...]:
    """The records of a board published as CSV alone (``problem_leaderboard_csv``'s columns and formats)."""
    rows = list(csv.DictReader(io.StringIO(board)))
    return tuple(
        {
            "rank": int(row["rank"]),
            "user": row["user"],
            "score": int(row["score"]),
            "L": int(row["L"]),
            "stage_pass": row["stage_pass"] == "yes",
            "reward_correct": row["reward_correct"] == "yes",
            "submission": int(row["submission"]),
            "submitted_at": row["submitted_at"],
        }
        for row in rows
    )


def records_csv(records: Sequence[dict[str, Any]]) -> str:
    """A board's records as the CSV that reveal publishes (the same renderer as every board's)."""
    return problem_csv(_ranked(records, ""))


def standings_of(version: BoardVersion, slug: str) -> list[Ranked[ScoredSubmission]]:
    """A published version as the ranked rows every renderer takes (no solver hash: its rank is recorded)."""
    return _ranked(version.records, slug)


def _ranked(records: Iterable[dict[str, Any]], slug: str) -> list[Ranked[ScoredSubmission]]:
    return [
        Ranked(
            int(r["rank"]),
            ScoredSubmission(
                submission_id=int(r["submission"]),
                user=str(r["user"]),
                problem=slug,
                score=int(r["score"]),
                length=int(r["L"]),
                created_at=parse_utc(str(r["submitted_at"])),
                solver_hash="",
                stage_pass=bool(r["stage_pass"]),
                reward_correct=bool(r["reward_correct"]),
            ),
        )
        for r in records
    ]


def amended(
    records: Sequence[dict[str, Any]], takes_out: Callable[[dict[str, Any]], bool]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The records without the rows ``takes_out`` names, re-ranked; and those rows (user and submission).

    No score changes. A row keeps its place among the others: its rank drops by the number of removed rows ranked
    above it, so rows that shared a rank still share one.
    """
    removed = [r for r in records if takes_out(r)]
    kept = [
        {**r, "rank": r["rank"] - sum(1 for gone in removed if gone["rank"] < r["rank"])}
        for r in records
        if not takes_out(r)
    ]
    return kept, [{"user": r["user"], "submission": r["submission"]} for r in removed]


def check_versions(slug: str, versions: Sequence[BoardVersion], recomputed_csv: str) -> list[str]:
    """Every way the published versions of ``slug`` disagree with the rows (``recomputed_csv``) and each other."""
    if not versions:
        return [f"{slug}: revealed, but no published board in the audit log"]
    what = f"{slug}: the board recomputed from the rows differs from the one revealed"
    problems = _differences(what, versions[0].csv, recomputed_csv)
    for before, after in zip(versions, versions[1:], strict=False):
        gone = {(r["user"], r["submission"]) for r in after.removed}
        expected, _ = amended(before.records, _one_of(gone))
        if records_csv(expected) != after.csv or list(after.records) != expected:
            problems.append(f"{slug}: version {after.version} is not version {before.version} with its rows removed")
    return problems


def _one_of(rows: set[tuple[str, int]]) -> Callable[[dict[str, Any]], bool]:
    return lambda record: (record["user"], record["submission"]) in rows


def _differences(what: str, published: str, recomputed: str) -> list[str]:
    if published == recomputed:
        return []
    old, new = published.splitlines(), recomputed.splitlines()
    shown = [f"published {line!r}" for line in old if line not in new]
    shown += [f"recomputed {line!r}" for line in new if line not in old]
    return [f"{what}: {'; '.join(shown[:6])}" + (" ..." if len(shown) > 6 else "")]
