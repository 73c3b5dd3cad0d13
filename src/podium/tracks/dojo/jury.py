"""What the jury (the operators) sees that nobody else does: a submission whole, copies, exports, account history.

Each function reads the platform and returns plain data; ``jury_cli.py`` prints it, ``jury_web.py`` serves it (API
and pages, operators only). Nothing here changes a row.
"""

from __future__ import annotations

import csv
import difflib
import io
import json
from collections import defaultdict
from dataclasses import asdict
from itertools import combinations
from typing import TYPE_CHECKING, Any

from podium.core.execution.sandbox import Sandbox
from podium.tracks.dojo.judge import judge_submission
from podium.tracks.dojo.records import Problem, Submission
from podium.tracks.dojo.similarity import NEAR, jaccard, normalised_hash, normalised_tokens, shingles, tokens_hash
from podium.tracks.dojo.store import audit_entries

if TYPE_CHECKING:
    from podium.tracks.dojo.platform import Dojo

RUN_FIGURES = ("wall_time_s", "cpu_time_s", "cpu_counted_by", "peak_memory_mib", "waited_s")


def _text(source: bytes) -> str:
    return source.decode("utf-8", "replace")


def previous_of(dojo: Dojo, submission: Submission) -> Submission | None:
    """The author's submission to the same problem just before this one, if any."""
    earlier = [s for s in dojo.submissions(submission.problem_id, submission.user_id) if s.id < submission.id]
    return max(earlier, key=lambda s: s.id, default=None)


def source_diff(before: Submission, after: Submission) -> str:
    """A unified diff of two submissions' sources, named by id."""
    lines = difflib.unified_diff(
        _text(before.source).splitlines(keepends=True),
        _text(after.source).splitlines(keepends=True),
        f"submission {before.id}",
        f"submission {after.id}",
    )
    return "".join(lines)


def submission_detail(dojo: Dojo, submission_id: int) -> dict[str, Any]:
    """Everything about one submission: source, diff with the author's previous, run figures, stderr, audit."""
    submission = dojo.submission(submission_id)
    problem = dojo.problem_by_id(submission.problem_id)
    names = dojo.user_names()
    previous = previous_of(dojo, submission)
    same = [
        {"id": s.id, "user": names[s.user_id]}
        for s in dojo.submissions(submission.problem_id)
        if s.user_id != submission.user_id and s.solver_hash is not None and s.solver_hash == submission.solver_hash
    ]
    with dojo.engine.connect() as db:
        entries = [(e, json.loads(e.payload)) for e in audit_entries(db)]  # each payload parsed once
    audit = [{"id": e.id, "at": e.at, "kind": e.kind, "payload": payload}
             for e, payload in entries if payload.get("submission") == submission_id]  # fmt: skip
    return {
        "id": submission.id,
        "problem": problem.slug,
        "problem_state": problem.state.value,
        "user": names[submission.user_id],
        "created_at": submission.created_at,
        "practice": submission.practice,
        "status": submission.status.value,
        "attempts": submission.attempts,
        "verdict": submission.verdict,
        "reason": submission.reason,
        "stage_pass": submission.stage_pass,
        "reward_correct": submission.reward_correct,
        "length": submission.length,
        "solver_hash": submission.solver_hash,
        "normalised_hash": normalised_hash(submission.source),
        "method_tag": submission.method_tag,
        "tag_override": submission.tag_override,
        "notes": submission.notes,
        "backend": submission.backend,
        "isolated": submission.isolated,
        "judge_version": submission.judge_version,
        "run": {name: getattr(submission, name) for name in RUN_FIGURES},
        "stderr": submission.stderr,
        "source": _text(submission.source),
        "previous": None if previous is None else {"id": previous.id, "diff": source_diff(previous, submission)},
        "same_hash_other_users": same,
        "audit": audit,
    }


def copies(dojo: Dojo, problem: Problem, near: float = NEAR) -> dict[str, Any]:
    """The problem's submissions that look copied across users: equal hashes, equal normalised hashes, near pairs.

    Each group lists submissions of two users or more; ``near`` pairs are of different users whose similarity
    (``similarity.py``) is at least ``near`` and whose normalised hashes differ (equal ones are a group already).
    """
    names = dojo.user_names()
    submissions = [s for s in dojo.submissions(problem.id) if s.solver_hash is not None]
    exact: dict[str, list[Submission]] = defaultdict(list)
    normal: dict[str, list[Submission]] = defaultdict(list)
    tokens = {s.id: normalised_tokens(s.source) for s in submissions}
    hashed = {s.id: tokens_hash(tokens[s.id]) for s in submissions}  # each source tokenized once
    for s in submissions:
        exact[str(s.solver_hash)].append(s)
        normal[hashed[s.id]].append(s)

    def groups(by: dict[str, list[Submission]]) -> list[dict[str, Any]]:
        return [
            {"hash": key, "submissions": [{"id": s.id, "user": names[s.user_id], "verdict": s.verdict} for s in group]}
            for key, group in sorted(by.items())
            if len({s.user_id for s in group}) > 1
        ]

    shingled = {s.id: shingles(tokens[s.id]) for s in submissions}
    pairs: list[dict[str, Any]] = []
    for a, b in combinations(submissions, 2):
        if a.user_id == b.user_id or hashed[a.id] == hashed[b.id]:
            continue
        score = jaccard(shingled[a.id], shingled[b.id])
        if score >= near:
            pairs.append({"a": {"id": a.id, "user": names[a.user_id]}, "b": {"id": b.id, "user": names[b.user_id]},
                          "similarity": round(score, 3)})  # fmt: skip
    pairs.sort(key=lambda p: (-p["similarity"], p["a"]["id"], p["b"]["id"]))
    return {"problem": problem.slug, "same_source": groups(exact), "same_normalised": groups(normal), "near": pairs,
            "near_threshold": near}  # fmt: skip


RESULT_COLUMNS = ("id", "problem", "user", "created_at", "practice", "status", "verdict", "stage_pass",
                  "reward_correct", "length", "method_tag", "counted_tag", "solver_hash")  # fmt: skip


def results(dojo: Dojo, season: str) -> list[dict[str, Any]]:
    """Every submission of the season's problems, one row each, as the jury exports them."""
    names = dojo.user_names()
    rows = []
    for problem in dojo.problems(season):
        for s in dojo.submissions(problem.id):
            rows.append({
                "id": s.id, "problem": problem.slug, "user": names[s.user_id], "created_at": s.created_at,
                "practice": s.practice, "status": s.status.value, "verdict": s.verdict, "stage_pass": s.stage_pass,
                "reward_correct": s.reward_correct, "length": s.length, "method_tag": s.method_tag,
                "counted_tag": s.counted_tag, "solver_hash": s.solver_hash,
            })  # fmt: skip
    return sorted(rows, key=lambda row: row["id"])


def results_tsv(rows: list[dict[str, Any]]) -> str:
    """``results`` as tab-separated values with a header; yes/no for booleans, empty for none."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter="\t", lineterminator="\n")
    writer.writerow(RESULT_COLUMNS)
    for row in rows:
        writer.writerow(["" if row[c] is None else ("yes" if row[c] is True else "no" if row[c] is False else row[c])
                         for c in RESULT_COLUMNS])  # fmt: skip
    return out.getvalue()


def audit_export(dojo: Dojo) -> list[dict[str, Any]]:
    """The whole audit log, in order, with each entry's chain hashes (``podium dojo verify-audit`` checks them)."""
    with dojo.engine.connect() as db:
        return [asdict(e) | {"payload": json.loads(e.payload)} for e in audit_entries(db)]


def account_history(dojo: Dojo) -> dict[str, list[dict[str, Any]]]:
    """Every account's disables and enables, oldest first, from the audit log (the account row keeps only now)."""
    history: dict[str, list[dict[str, Any]]] = defaultdict(list)
    with dojo.engine.connect() as db:
        for entry in audit_entries(db, ("user_disabled", "user_enabled")):
            payload = json.loads(entry.payload)
            event = {"at": entry.at, "event": "disabled" if entry.kind == "user_disabled" else "enabled"}
            if "reason" in payload:
                event["reason"] = payload["reason"]
            history[payload["user"]].append(event)
    return dict(history)


JUDGED_FIELDS = ("verdict", "stage_pass", "reward_correct", "tag_override")


def rejudge_preview(dojo: Dojo, sandbox: Sandbox, problem: Problem, submission_id: int | None = None) -> dict[str, Any]:
    """What ``rejudge`` would change: each judged submission judged again now, nothing stored.

    Every submission of the problem (or the one named) that has a verdict is run again by today's judge against
    the problem's terms under its season's rules; the rows whose verdict, gates or tag override would differ are
    listed with both judgments. The preview is itself a judgment of every row, so it costs what a rejudge costs.
    """
    rules = dojo.season_of(problem).rules
    names = dojo.user_names()
    chosen = [
        s
        for s in dojo.submissions(problem.id)
        if s.verdict is not None and (submission_id is None or s.id == submission_id)
    ]
    changes = []
    for s in chosen:
        now = judge_submission(s.source, problem.terms or (), sandbox, rules, method_tag=s.method_tag)
        before = {name: getattr(s, name) for name in JUDGED_FIELDS}
        after = {"verdict": now.verdict.value, "stage_pass": now.stage_pass, "reward_correct": now.reward_correct,
                 "tag_override": now.tag_override}  # fmt: skip
        if before != after:
            changes.append({"id": s.id, "user": names[s.user_id], "stored": before, "now": after,
                            "reason_now": now.reason})  # fmt: skip
    return {"problem": problem.slug, "judged_again": len(chosen), "would_change": changes}
