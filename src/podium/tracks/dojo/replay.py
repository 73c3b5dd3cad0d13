"""Replay a season from its database and audit log: anyone holding both can check the published results.

1. The audit chain is intact (every entry hashes to its successor's ``prev_hash``).
2. For every revealed problem, the revealed salt, setter and terms reproduce the commitments published at opening.
3. Every judged submission's stored length and hash are those of its stored source, measured again by ``admit``
   (and those in its ``judged`` audit entry, where the entry records them); a row without a length is never
   counted.
4. Rejudging every counted submission in the sandbox (optional; judging is deterministic) gives the stored verdict,
   gates and method-tag override, and each matches its ``judged`` audit entry. A submission an older judge judged
   (its stored ``judge_version``) that today's judges differently is reported as "judge changed since", apart from
   the discrepancies: the judge that gave the stored result cannot run again, and its result stands.
5. The per-problem leaderboard recomputed from the database (with the users left out as the ``revealed`` entry
   records) equals, byte for byte, the one that entry published, and every amendment is the version before it with
   its rows removed (``published.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from podium.core.execution.sandbox import Sandbox
from podium.core.records import StageFailure
from podium.core.storage.audit import audit_payload, verify_chain
from podium.tracks.dojo.admit import admit
from podium.tracks.dojo.commit import Commitments, verify_reveal
from podium.tracks.dojo.judge import JUDGE_VERSION, judge_submission
from podium.tracks.dojo.lifecycle import REVEALED_STATES
from podium.tracks.dojo.platform import Dojo
from podium.tracks.dojo.published import check_versions
from podium.tracks.dojo.records import JobStatus, Problem, Submission
from podium.tracks.dojo.results import counted, recomputed_leaderboard_csv
from podium.tracks.dojo.rules import ScoringRules
from podium.tracks.dojo.store import audit_entries


@dataclass
class ReplayReport:
    """What a replay checked and every discrepancy it found (none means the season replays exactly)."""

    audit_entries: int = 0
    audit_head: str = ""
    problems_checked: int = 0
    submissions_rejudged: int = 0
    discrepancies: list[str] = field(default_factory=list)
    # rejudged differently by today's judge, where an older judge version judged it: not tampering
    judge_changes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether everything matched."""
        return not self.discrepancies


def replay_season(dojo: Dojo, season: str, sandbox: Sandbox | None = None) -> ReplayReport:
    """Check ``season`` as described above; rejudge only when a ``sandbox`` is given."""
    report = ReplayReport()
    with dojo.engine.connect() as db:
        entries = audit_entries(db)
    chain = verify_chain(entries)
    report.audit_entries, report.audit_head = chain.entries, chain.head
    if not chain.ok:
        report.discrepancies.append(f"audit log broken at entry {chain.broken_at}: {chain.problem}")
    opened: dict[str, dict[str, object]] = {}
    revealed: dict[str, dict[str, object]] = {}
    judged: dict[int, dict[str, object]] = {}
    for entry in entries:
        payload = audit_payload(entry)
        if entry.kind == "opened":
            opened[str(payload["problem"])] = payload
        elif entry.kind == "revealed":
            revealed[str(payload["problem"])] = payload
        elif entry.kind == "judged":
            judged[int(payload["submission"])] = payload  # the last judgment of a rejudged submission wins
    rules = dojo.season(season).rules
    for problem in dojo.problems(season):
        if problem.state not in REVEALED_STATES:
            continue
        report.problems_checked += 1
        published, final = opened.get(problem.slug), revealed.get(problem.slug)
        if published is None or final is None:
            report.discrepancies.append(f"{problem.slug}: no opened/revealed entry in the audit log")
            continue
        commitments = Commitments(str(published["setter_commit"]), str(published["seq_commit"]))
        if not verify_reveal(
            commitments, bytes.fromhex(str(final["salt_hex"])), problem.setter_source, problem.terms or ()
        ):
            report.discrepancies.append(f"{problem.slug}: revealed salt, setter and terms do not match the commitments")
        for submission in dojo.submissions(problem.id):
            if submission.status is JobStatus.JUDGED:
                report.discrepancies.extend(_length_problems(submission, judged.get(submission.id), rules))
            if not counted(submission):
                continue
            stored = (submission.verdict, submission.stage_pass, submission.reward_correct, submission.tag_override)
            judgment = judged.get(submission.id) or {}
            logged = tuple(judgment.get(key) for key in ("verdict", "stage_pass", "reward_correct", "tag_override"))
            if logged != stored:
                report.discrepancies.append(f"submission {submission.id}: stored result differs from the audit log")
            if sandbox is not None:
                again = judge_submission(
                    submission.source, problem.terms or (), sandbox, rules, method_tag=submission.method_tag
                )
                report.submissions_rejudged += 1
                if (again.verdict.value, again.stage_pass, again.reward_correct, again.tag_override) != stored:
                    said = (
                        f"submission {submission.id}: rejudged {again.verdict.value} (stage {again.stage_pass}, "
                        f"reward {again.reward_correct}, tag override {again.tag_override}), stored {stored}"
                    )
                    if submission.judge_version == JUDGE_VERSION:
                        report.discrepancies.append(said)
                    else:  # today's judge cannot be yesterday's: the stored result stands as that judge gave it
                        judged_by = submission.judge_version or "a judge from before versions were stored"
                        report.judge_changes.append(f"{said}; judge changed since ({judged_by}, now {JUDGE_VERSION})")
        report.discrepancies.extend(published_problems(dojo, problem))
    return report


def published_problems(dojo: Dojo, problem: Problem) -> list[str]:
    """How a revealed problem's published versions disagree with its rows and with each other (empty: they hold)."""
    versions = dojo.board_versions(problem)
    excluded = None
    if versions and versions[0].excluded_users is not None:
        ids = {name: user_id for user_id, name in dojo.user_names().items()}
        excluded = frozenset(ids[name] for name in versions[0].excluded_users if name in ids)
    return check_versions(problem.slug, versions, recomputed_leaderboard_csv(dojo, problem, excluded))


def check_published_boards(dojo: Dojo) -> list[str]:
    """``published_problems`` for every revealed problem of every season (``podium dojo verify-audit``)."""
    return [found for problem in dojo.problems() if problem.state in REVEALED_STATES
            for found in published_problems(dojo, problem)]  # fmt: skip


def _length_problems(submission: Submission, logged: dict[str, object] | None, rules: ScoringRules) -> list[str]:
    """Why a judged submission's stored length or hash cannot be trusted (empty when they can)."""
    if submission.length is None:
        if submission.verdict != "POLICY_REJECT":
            return [f"submission {submission.id}: judged {submission.verdict} without a length"]
        return []
    measured = admit(submission.source, max_bytes=rules.max_source_bytes)
    if isinstance(measured, StageFailure):
        return [f"submission {submission.id}: its stored source is not admitted ({measured.reason})"]
    found = []
    if (measured.length, measured.sha256) != (submission.length, submission.solver_hash):
        found.append(
            f"submission {submission.id}: stored length {submission.length} and hash {submission.solver_hash}, "
            f"the stored source measures {measured.length} and {measured.sha256}"
        )
    if logged is not None and "length" in logged and logged["length"] != submission.length:
        found.append(f"submission {submission.id}: stored length differs from the audit log ({logged['length']})")
    return found
