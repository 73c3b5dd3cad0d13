"""The dojo's HTML pages, built from records: what a solver reads, in words and tables rather than raw JSON.

Each function returns a page body (the routes in ``web.py`` wrap it in the shared layout). Terms are shown as a
wrapped, copyable block with their count, a few lines high however many there are; the commitments and the rules
are explained in sentences; leaderboards, submissions and method tags are HTML tables. Every value is escaped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from podium.core.clock import parse_utc
from podium.tracks.dojo.bonus import KNOWN_TAGS
from podium.tracks.dojo.clarifications import Message
from podium.tracks.dojo.lifecycle import PUBLISHED as PUBLISHED_STATES
from podium.tracks.dojo.lifecycle import REVEALED_STATES, ProblemState
from podium.tracks.dojo.listing import QUEUE_COLUMNS, SUBMISSION_COLUMNS
from podium.tracks.dojo.records import Problem
from podium.tracks.dojo.rules import ScoringRules
from podium.web.layout import copyable, countdown, esc, table

TERM_SEPARATOR = ", "
ME_HEADER = ("id", "problem", "submitted", "status", "verdict", "reason", "L", "score", "practice", "method tag")
LEADERBOARD_NUMERIC = (
    "rank",
    "score",
    "L",
    "stage_pass",
    "reward_correct",
    "median_L",
    "problems",
    "submission",
    "submissions",
)


def when(moment: str | None) -> str:
    """A stored UTC time for people: to the minute, or "not scheduled"."""
    if not moment:
        return "not scheduled"
    return moment[:16].replace("T", " ") + " UTC"


def terms_block(element_id: str, heading: str, terms: Sequence[str]) -> str:
    """A heading with the number of terms, then the terms as one copyable, wrapped block."""
    count = f"{len(terms)} term" + ("" if len(terms) == 1 else "s")
    return f"<h2>{esc(heading)} ({count})</h2>" + copyable(element_id, TERM_SEPARATOR.join(terms))


def when_and_left(moment: str | None, now: datetime) -> str:
    """A stored time for people (HTML), with a live countdown while it is still to come."""
    if not moment or parse_utc(moment) <= now:
        return esc(when(moment))
    return f"{esc(when(moment))} ({countdown(parse_utc(moment), now)})"


def schedule(problem: Problem, now: datetime) -> str:
    """What happens when, in words, with a countdown to each step still to come."""
    state = problem.state
    if state is ProblemState.OPEN:
        headline = "Open: submissions count toward the leaderboard."
    elif state is ProblemState.FROZEN:
        headline = "Frozen: new submissions are judged as practice and do not count."
    else:
        headline = f"Revealed on {esc(when(problem.revealed_at))}: the setter, the salt and every term are published."
    return (
        f"<p><strong>{headline}</strong></p><ul>"
        f"<li>Opens: {when_and_left(problem.opened_at or problem.open_at, now)}</li>"
        f"<li>Freeze: {when_and_left(problem.freeze_started_at or problem.freeze_at, now)}; after it, submissions "
        "are practice (judged, not counted).</li>"
        f"<li>Reveal: {when_and_left(problem.revealed_at or problem.reveal_at, now)}; then the terms beyond the "
        "visible ones, the setter program, your Reward Correct results and the leaderboard are published.</li></ul>"
    )


def commitments(problem: Problem) -> str:
    """The two commitments and how anyone checks them at reveal."""
    return (
        "<h2>Commitments</h2><p>Before the problem opened, the setter's program and its sequence were committed to "
        "with SHA-256 over a secret salt, so neither can change afterwards. At reveal the salt is published and "
        "anyone can check:</p><ul>"
        f"<li>setter commitment <code>{esc(problem.setter_commit or '')}</code> = SHA-256 of "
        "<code>dojo-setter-v1</code>, a zero byte, the salt and <code>setter.py</code>;</li>"
        f"<li>sequence commitment <code>{esc(problem.seq_commit or '')}</code> = SHA-256 of "
        "<code>dojo-seq-v1</code>, a zero byte, the salt and the terms, one per line.</li></ul>"
    )


def rules_text(rules: ScoringRules) -> str:
    """The season's scoring rules in sentences."""
    return (
        "<h2>Rules</h2><ul>"
        f"<li>Your program prints the sequence, one term per line; the first {rules.n_check} lines are judged.</li>"
        f"<li><strong>Stage Pass</strong> ({rules.stage_base} points): the first {rules.n_stage} terms are right. "
        "You learn it as soon as you are judged.</li>"
        f"<li><strong>Reward Correct</strong> ({rules.reward_base} points, replacing the Stage Pass points): all "
        f"{rules.n_check} terms are right; learned at reveal.</li>"
        f"<li>Brevity (Reward Correct only): ⌊{rules.brevity_max}·e<sup>−L/{rules.brevity_scale_chars:g}</sup>⌋ "
        "points, where L is your source's length in characters.</li>"
        + (
            f"<li>Diversity: {rules.diversity_first_tag_bonus} points to the first Reward Correct solution of a "
            f"method tag, at most {rules.diversity_bonus_cap} in all.</li>"
            if rules.diversity_enabled
            else ""
        )
        + f"<li>Sources: at most {rules.max_source_bytes} bytes, {rules.max_numeric_literals} numeric literals, "
        f"{rules.max_list_tuple_elements} list or tuple elements, strings of {rules.max_string_literal_chars} "
        "characters"
        + (
            f", and {rules.max_literal_payload_bytes} bytes of literal payload (digits of every number in its own "
            "base, UTF-8 bytes of every string"
            + (", every byte of a name beyond its eighth" if rules.names_count_as_payload else "")
            + ")"
            if rules.payload_budget
            else ""
        )
        + "; your best submission counts. Comments are removed before your program runs.</li></ul>"
    )


def problem_body(problem: Problem, rules: ScoringRules, revealed: Mapping[str, Any] | None, now: datetime) -> str:
    """The problem page: statement, schedule, terms, commitments, rules; then the submit form, or the results.

    ``revealed`` (after reveal) holds ``setter``, ``leaderboard`` (records), ``versions`` (``web.version_json``),
    ``tags`` (as ``problem_tags``) and ``payloads`` (as ``problem_payloads``).
    """
    parts = [
        f"<p>{esc(problem.statement)}</p>",
        schedule(problem, now),
        terms_block("visible-terms", f"Visible terms, from index {problem.offset}", problem.visible_terms),
        commitments(problem),
        rules_text(rules),
    ]
    if revealed is None:
        parts.append(submit_form(problem.slug))
        return "".join(parts)
    parts += [
        f"<h2>Salt</h2><p><code id='salt'>{esc(problem.salt_hex or '')}</code></p>",
        terms_block("all-terms", "All terms", problem.terms or ()),
        "<h2>setter.py</h2>" + copyable("setter", revealed["setter"]),
        "<h2>Leaderboard</h2>" + leaderboard_table(revealed["leaderboard"], empty="Nobody submitted."),
        amendments(revealed["versions"]),
        "<h2>Method tags of Reward Correct submissions</h2>" + tags_table(revealed["tags"]),
        "<h2>Literal payload of Reward Correct submissions</h2><p>The bytes of information in each solution's "
        "literals (digits of numbers, UTF-8 bytes of strings), beside its L: a solution that is mostly a table "
        "shows a payload close to its L.</p>"
        + leaderboard_table(revealed["payloads"], empty="No Reward Correct submission."),
        "<p class='note'>Submissions are closed: the problem is revealed. Try a solver on your own machine with "
        "<code>podium dojo judge</code>.</p>",
    ]
    return "".join(parts)


def amendments(versions: Sequence[Mapping[str, Any]]) -> str:
    """The board's history when it was amended after reveal: each version, its reason and the rows it took off."""
    if len(versions) < 2:
        return ""
    items = "".join(
        f"<li>Version {v['version']}, {esc(v['published_at'])}: without "
        + esc(", ".join(f"{row['user']} (submission {row['submission']})" for row in v["removed"]))
        + f". Reason: {esc(v['reason'])}</li>"
        for v in versions[1:]
    )
    return (
        f"<h3>Amended after reveal</h3><p>The board above is version {versions[-1]['version']}; the board as "
        "revealed, version 1, and every version since stay published (<code>/api/problems/…/leaderboard/versions"
        "</code>). No other score was recomputed.</p><ul class='amendments'>" + items + "</ul>"
    )


def submit_form(slug: str) -> str:
    """The form that submits a solver (the token signs the browser in: a session, not the token, is kept)."""
    return (
        f"<h2>Submit</h2><form method='post' action='../submit/{esc(slug)}'>"
        "<p><label>API token <input name='token' type='password'></label> (once: the browser stays signed in)</p>"
        "<p><textarea name='source' rows='12' cols='80' placeholder='solver.py'></textarea></p>"
        f"<p><label>method tag <select name='method_tag'>{TAG_OPTIONS}</select></label></p>"
        "<button>Submit</button></form>"
    )


TAG_OPTIONS = "<option value=''>(none: unspecified)</option>" + "".join(
    f"<option>{esc(tag)}</option>" for tag in KNOWN_TAGS
)  # the six names docs/rules/dojo-scoring.md §6.1 gives: any other text would count as "other"


def cell(value: Any) -> str:
    """A JSON value as table text: yes/no for booleans, empty for null."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "" if value is None else str(value)


def leaderboard_table(records: Sequence[Mapping[str, Any]], *, empty: str) -> str:
    """Leaderboard records (typed JSON) as an HTML table, or the sentence ``empty`` when there are none."""
    if not records:
        return f"<p class='note'>{esc(empty)}</p>"
    header = list(records[0])
    return table(header, [[cell(r[h]) for h in header] for r in records], numeric=LEADERBOARD_NUMERIC)


def tags_table(tags: Mapping[str, Any]) -> str:
    """The method tags as claimed and as counted, one row per tag, and the overrides."""
    claimed, counted = tags["claimed"], tags["counted"]
    names = sorted({*claimed, *counted})
    if not names:
        return "<p class='note'>No Reward Correct submission.</p>"
    shown = table(
        ("method tag", "claimed", "counted"),
        [[name, str(claimed.get(name, 0)), str(counted.get(name, 0))] for name in names],
        numeric=("claimed", "counted"),
    )
    if tags["overridden"]:
        shown += "<p>Claims the judge did not accept (counted as <code>unspecified</code>):</p>" + table(
            ("submission", "claimed", "reason"),
            [[str(o["submission"]), o["claimed"], o["reason"]] for o in tags["overridden"]],
        )
    return shown


def me_table(rows: Sequence[Mapping[str, Any]], scores: Mapping[int, int]) -> str:
    """A solver's submissions: verdict, reason and score where published, L, practice."""
    if not rows:
        return "<p class='note'>No submissions yet.</p>"
    pending = "at reveal"
    body = [
        [
            str(r["id"]),
            r["problem"],
            r["created_at"][:19].replace("T", " "),
            r["status"],
            r["verdict"] or "",
            r.get("reason") or "",
            cell(r["length"]),
            pending if "reward_correct" not in r else cell(scores.get(r["id"], 0 if not r["practice"] else None)),
            cell(r["practice"]),
            r["method_tag"] + (f" (not accepted: {r['tag_override']})" if r["tag_override"] else ""),
        ]
        for r in rows
    ]
    links = " ".join(f"<a href='me/submission?id={r['id']}'>#{r['id']}</a>" for r in rows)
    return (
        table(ME_HEADER, body, numeric=("id", "L", "score"))
        + f"<p>Open one: {links}</p>"
        + "<p class='note'>While a problem is open you see the run verdict, its reason (it comes from your code "
        "and output only) and Stage Pass; Reward Correct, the score and your program's stderr are published at "
        "reveal. Practice submissions are judged but never counted.</p>"
    )


def season_body(season: str, problems: Sequence[Problem], records: Sequence[Mapping[str, Any]]) -> str:
    """The season leaderboard, saying which problems it counts and when the others are published."""
    revealed = [p for p in problems if p.state in REVEALED_STATES]
    waiting = [p for p in problems if p.state not in REVEALED_STATES]
    intro = (
        f"<p>The season leaderboard sums each user's best score on every revealed problem: "
        f"{len(revealed)} of {len(problems)} problems are revealed. A problem's scores are published at its "
        "reveal, never before.</p>"
    )
    if waiting:
        intro += (
            "<ul>"
            + "".join(
                f"<li><a href='../problems/{esc(p.slug)}'>{esc(p.slug)}</a> ({p.state.value.lower()}): "
                f"published at reveal, {esc(when(p.reveal_at))}</li>"
                for p in waiting
            )
            + "</ul>"
        )
    empty = "No problem of this season is revealed yet, so no score is published and the table is empty."
    return intro + leaderboard_table(records, empty=empty)


def operator_body(queue: Sequence[Mapping[str, Any]], listed: Sequence[Mapping[str, Any]], filters: str) -> str:
    """The operator's page: the judging queue in claim order, then the submissions the filters chose."""
    waiting = table(QUEUE_COLUMNS, [[cell(r[c]) for c in QUEUE_COLUMNS] for r in queue], numeric=("waiting_s",))
    chosen = table(SUBMISSION_COLUMNS, [[cell(r[c]) for c in SUBMISSION_COLUMNS] for r in listed])
    form = (
        "<form method='get' action='operator'><label>problem <input name='problem'></label> <label>user "
        "<input name='user'></label> <label>status <select name='status'><option value=''>any</option>"
        "<option>queued</option><option>running</option><option>judged</option></select></label> "
        "<button type='submit'>Filter</button></form>"
    )
    return (
        f"<h2>Queue ({len(queue)} waiting or running)</h2>"
        + (waiting if queue else "<p class='note'>Nothing waits.</p>")
        + f"<h2>Submissions{esc(filters)}</h2>{form}"
        + (chosen if listed else "<p class='note'>None.</p>")
        + "<p class='note'>The same as <code>podium dojo queue</code> and <code>podium dojo submissions</code>.</p>"
        + "<h2>Look closer</h2>"
        "<form method='get' action='operator/submission'><label>submission id <input name='id' inputmode='numeric' "
        "required></label> <button type='submit'>Open</button></form>"
        "<form method='get' action='operator/copies'><label>copies in problem <input name='problem' required></label> "
        "<button type='submit'>Show</button></form>"
        "<form method='get' action='operator/export/results'><label>results of season <input name='season' required>"
        "</label> <select name='format'><option>tsv</option><option>json</option></select> "
        "<button type='submit'>Download</button></form>"
        "<p><a href='operator/export/audit'>The audit log (JSON)</a></p>"
    )


def scoreboard_body(
    season: str, problems: Sequence[Problem], records: Sequence[Mapping[str, Any]], now: datetime
) -> str:
    """The season's public scoreboard, saying for each problem what part of it is shown and until when."""

    def shown(problem: Problem) -> str:  # HTML
        if problem.state in REVEALED_STATES:
            return "revealed: its scores count in full"
        if problem.state is ProblemState.FROZEN:
            since = when(problem.freeze_started_at or problem.freeze_at)  # when it froze, not when it was due to
            return f"frozen since {esc(since)}: Stage Pass and submissions as at the freeze"
        freeze = when_and_left(problem.freeze_at, now)
        return f"open: who reached Stage Pass and how often they submitted, until the freeze ({freeze})"

    listed = [p for p in problems if p.state in PUBLISHED_STATES]
    states = "".join(f"<li id='state-{esc(p.slug)}'><a href='../problems/{esc(p.slug)}'>{esc(p.slug)}</a>: "
                     f"{shown(p)}</li>" for p in listed)  # fmt: skip
    intro = (
        f"<p>The board of season {esc(season)} follows it within what the rules publish: Reward Correct and "
        f"scores appear at each problem's reveal, never before.</p><ul>{states}</ul>"
    )
    if not any(p.state in REVEALED_STATES for p in listed):  # a 0 would read as "no points", not "not published"
        records = [dict(r) | {"score": "at reveal", "reward_correct": "at reveal"} for r in records]
    return intro + leaderboard_table(records, empty="Nobody has a counted submission yet.")


def messages_html(said: Sequence[Message], heading: str) -> str:
    """Clarifications and announcements, newest first: who to whom, about what, the question an answer answers."""
    if not said:
        return f"<h2 id='messages'>{esc(heading)}</h2><p class='note'>No messages yet.</p>"
    items = []
    for m in reversed(said):
        about = f" about {m.problem}" if m.problem else ""
        to = "everyone" if m.to is None else m.to
        head = {
            "question": f"Question from {m.author}{about}" + ("" if m.answered else " (not answered yet)"),
            "answer": f"Answer to {to}{about}",
            "announcement": f"Announcement to {to}{about}",
        }[m.kind.value]
        quoted = f"<blockquote>{esc(m.question)}</blockquote>" if m.question else ""
        items.append(f"<li class='message {m.kind.value}' id='message-{m.id}'><strong>{esc(head)}</strong>, "
                     f"{esc(when(m.at))}{quoted}<p>{esc(m.text)}</p></li>")  # fmt: skip
    return f"<h2 id='messages'>{esc(heading)}</h2><ul class='messages'>" + "".join(items) + "</ul>"


def ask_form() -> str:
    """The form that asks the jury a question."""
    return (
        "<form method='post' action='clarifications'><p><label>Ask the jury (about problem <input name='problem' "
        "size='12' placeholder='all'>)</label></p><p><textarea name='text' rows='3' maxlength='4000'></textarea></p>"
        "<button type='submit'>Ask</button></form>"
    )


def jury_questions_html(said: Sequence[Message]) -> str:
    """The operator's part: each question waiting, with a form to answer it, then the form that announces."""
    waiting = [m for m in said if m.kind.value == "question" and not m.answered]
    forms = "".join(
        f"<li id='question-{m.id}'><strong>{esc(m.author)}</strong>"
        f"{esc(' about ' + m.problem if m.problem else '')}, {esc(when(m.at))}<p>{esc(m.text)}</p>"
        f"<form method='post' action='operator/answer'><input type='hidden' name='question' value='{m.id}'>"
        "<textarea name='text' rows='2' maxlength='4000' required></textarea>"
        "<label><input type='checkbox' name='to_all' value='1'> answer to everyone (publishes the question)</label> "
        "<button type='submit'>Answer</button></form></li>"
        for m in waiting
    )
    return (
        f"<h2 id='questions'>Questions waiting ({len(waiting)})</h2>"
        + (f"<ul class='messages'>{forms}</ul>" if waiting else "<p class='note'>None.</p>")
        + "<h3>Announce</h3><form method='post' action='operator/announce'><p><textarea name='text' rows='2' "
        "maxlength='4000' required></textarea></p><p><label>to user <input name='to' placeholder='everyone'></label> "
        "<label>about problem <input name='problem' placeholder='all'></label></p>"
        "<button type='submit'>Announce</button></form>"
    )


def own_submission_body(shown: Mapping[str, Any], source: str) -> str:
    """One of the reader's submissions: what they may know of it now, its source, and its stderr once revealed."""
    facts = [[k, cell(shown[k])] for k in ("problem", "created_at", "status", "verdict", "reason", "stage_pass",
                                             "length", "method_tag", "practice") if k in shown]  # fmt: skip
    if "reward_correct" in shown:
        facts.append(["reward_correct", cell(shown["reward_correct"])])
        stderr = "<h2>Stderr (its last bytes)</h2>" + f"<pre>{esc(shown['stderr'] or '(none)')}</pre>"
    else:
        stderr = "<p class='note'>Reward Correct and your program's stderr are published at reveal.</p>"
    return table(("field", "value"), facts) + f"<h2>Source</h2><pre>{esc(source)}</pre>" + stderr
