"""The bodies of wmeval's pages, apart from the routes (``web.py``), built on the core's one HTML layer.

The queue, the item page and the rubric it shows, the operator's dashboard and flagged items. The item page is laid
out for the common laptop (1366×768): the generated video above the three-view reference strip (any view enlarged
on demand), each as wide as the page allows, one row of controls for both below them, and beside them the scores
with the short bilingual rubric and the note, all without scrolling; the full rubric with the official examples and
the final frames follow below, folded. Every value is escaped here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from podium.core.reporting.markup import esc, table
from podium.tracks.wmeval.annotate import CANT_JUDGE, CantJudge, ItemView, Progress, QueueItem
from podium.tracks.wmeval.assign import AssignmentRow

RUBRIC_FILE = Path(__file__).with_name("rubric.txt")
SPEEDS = ("0.25", "0.5", "1", "1.5", "2")
ITEM_STYLE = (
    "<style>body{max-width:84rem;margin:.4rem auto}h1{font-size:1.1rem;margin:.2rem 0}nav{font-size:90%}"
    "p{margin:.25rem 0}.pair{display:grid;grid-template-columns:minmax(0,2fr) minmax(0,3fr);gap:.6rem}"
    ".pair video,.pair img{width:100%;max-height:36vh;object-fit:contain;background:#000;cursor:zoom-in}"
    # the two players stacked, as wide as the page allows beside the scores: a 3:1 strip gets ~1.5x the height
    # it had side by side at 1366x768 (width, not height, was the limit)
    ".stage{display:grid;grid-template-columns:minmax(0,2.1fr) minmax(0,1fr);gap:.8rem;align-items:start}"
    ".watch .pair{grid-template-columns:minmax(0,1fr);gap:.2rem}.watch .pair video{max-height:33vh}"
    ".decide-column .decide{grid-template-columns:minmax(0,1fr);gap:.4rem}"
    "figure{margin:0}figcaption{font-weight:600;font-size:90%}.controls{margin:.3rem 0}"
    ".decide{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:1rem;align-items:start}"
    ".scores button{font-size:1.1rem;margin:.1rem;padding:.3rem .9rem}.short-rubric{margin:0;padding:0;"
    "list-style:none;font-size:90%}.short-rubric b{display:inline-block;min-width:1rem}.zh{color:#444}"
    "#watch-status{color:#555}"
    "#save-status[data-state=retrying],#save-status[data-state=refused]{color:#a00;font-weight:600}"
    "#scrub{width:18rem;vertical-align:middle}textarea{width:100%;box-sizing:border-box}"
    ".enlarged{position:fixed;inset:0;width:100vw!important;height:100vh;max-height:none!important;z-index:10;"
    "background:#000;object-fit:contain;cursor:zoom-out}.rubric dt{font-weight:600}"
    ".views{font-weight:400;font-size:85%}.views button{font-size:85%;padding:0 .4rem;margin-left:.2rem}"
    "#zoom{position:fixed;inset:0;z-index:11;background:#000;cursor:zoom-out;text-align:center}"
    "#zoom canvas{width:100vw;height:calc(100vh - 2rem);object-fit:contain}#zoom p{color:#ccc;margin:0}</style>"
)


@dataclass(frozen=True, slots=True)
class Rubric:
    """The official rubric in English and Chinese: the instruction, each score's definition, the examples."""

    instruction: tuple[str, str]
    scores: tuple[tuple[str, str, str, str, str], ...]  # score, title, title zh, definition, definition zh
    examples: tuple[tuple[str, str, str, str, str], ...]  # score, label, label zh, text, text zh


@cache
def rubric() -> Rubric:
    """The rubric of ``rubric.txt``."""
    instruction: tuple[str, str] = ("", "")
    scores, examples = [], []
    for line in RUBRIC_FILE.read_text("utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        kind, *fields = line.split("|")
        if kind == "instruction":
            instruction = (fields[0], fields[1])
        elif kind == "score":
            scores.append((fields[0], fields[1], fields[2], fields[3], fields[4]))
        elif kind == "example":
            examples.append((fields[0], fields[1], fields[2], fields[3], fields[4]))
    return Rubric(instruction, tuple(sorted(scores, reverse=True)), tuple(examples))


@dataclass(frozen=True, slots=True)
class ItemPage:
    """What the item page shows besides the item itself."""

    position: int
    total: int
    answered: int
    frozen_since: str | None


def item_body(view: ItemView, where: ItemPage, answer_text: str) -> str:
    """The item page's body: players, controls, scoring with the short rubric, then the full rubric and frames."""
    shown = rubric()
    media = f"/wmeval/media/{esc(view.key)}"
    answered = view.score is not None or view.cant_judge is not None
    closed = (
        f"<p id='frozen' role='alert'>Scoring is closed since {esc(where.frozen_since)}: the scores are being "
        "published, so answers are not saved now.</p>"
        if where.frozen_since is not None
        else ""
    )
    players = (
        "<div class='pair'>"
        f"<figure><figcaption>Generated (to score) · 生成视频</figcaption><video id='generated' "
        f"src='{media}/generated.mp4' muted playsinline preload='auto' controls></video></figure>"
        f"<figure><figcaption>Reference (real robot) · 参考视频 <span class='views'>enlarge one view: "
        "<button type='button' class='view' data-view='0'>left</button><button type='button' class='view' "
        "data-view='1'>middle</button><button type='button' class='view' data-view='2'>right</button></span>"
        f"</figcaption><video id='reference' src='{media}/reference.mp4' muted playsinline preload='auto' "
        "controls></video></figure></div><div id='zoom' hidden><canvas id='zoom-view'></canvas>"
        "<p>Click or Escape to close · the view follows the video</p></div>"
    )
    speeds = "".join(f"<option value='{s}'{' selected' if s == '1' else ''}>{s}x</option>" for s in SPEEDS)
    controls = (
        "<div class='controls'><button id='start-both' type='button'>Start both</button> "
        "<button id='play-pause' type='button' title='space'>Play / pause</button> "
        "<button id='step-back' type='button' title='left arrow'>◀ frame</button>"
        "<button id='step-forward' type='button' title='right arrow'>frame ▶</button> "
        "<input id='scrub' type='range' min='0' max='0' step='0.001' value='0' aria-label='position of both'> "
        f"<label><input id='loop' type='checkbox'> Loop</label> <label>Speed <select id='speed'>{speeds}</select>"
        "</label> <span class='note'>double-click a video to enlarge it</span></div>"
    )
    buttons = "".join(
        f"<button type='button' class='score' data-score='{esc(s)}' disabled title='{esc(d)}'>{esc(s)}</button>"
        for s, _, _, d, _ in sorted(shown.scores)
    )
    short = "".join(
        f"<li><b>{esc(s)}</b> {esc(t)} · <span class='zh' lang='zh'>{esc(tz)}</span></li>"
        for s, t, tz, _, _ in shown.scores
    )
    reasons = "".join(f"<option value='{esc(k)}'>{esc(v)}</option>" for k, v in CANT_JUDGE.items())
    current = f"<p>Answered: {esc(answer_text)}.</p>" if answered else ""
    decide = (
        "<div class='decide'><div>"
        f"{current}<p id='watch-status' aria-live='polite'></p><div class='scores'>{buttons}</div>"
        "<p id='save-status' role='status' aria-live='polite'></p>"
        "<p><label>Can't judge · 无法评判: <select id='cant-judge'><option value=''>(choose why)</option>"
        f"{reasons}</select></label> <button id='submit-cant-judge' type='button' disabled>Send \"can't judge\""
        "</button></p></div><div>"
        f"<ul class='short-rubric' id='short-rubric'>{short}</ul>"
        f"<label>Note<textarea id='note' rows='2' maxlength='2000'>{esc(view.note)}</textarea></label></div></div>"
    )
    definitions = "".join(
        f"<dt>{esc(s)}: {esc(t)} · <span lang='zh'>{esc(tz)}</span></dt><dd>{esc(d)}<br><span class='zh' "
        f"lang='zh'>{esc(dz)}</span></dd>"
        for s, t, tz, d, dz in shown.scores
    )
    examples = "".join(
        f"<li><b>{esc(s)}</b> {esc(label)} · <span lang='zh'>{esc(label_zh)}</span>: {esc(text)}<br>"
        f"<span class='zh' lang='zh'>{esc(text_zh)}</span></li>"
        for s, label, label_zh, text, text_zh in shown.examples
    )
    full = (
        "<details id='rubric-full'><summary>Full rubric and examples · 完整评分细则与示例</summary>"
        f"<dl class='rubric'>{definitions}</dl><ul>{examples}</ul></details>"
        "<details id='final-frames'><summary>Final frames side by side · 最后一帧对比</summary><div class='pair'>"
        f"<figure><figcaption>Generated, last frame</figcaption><img id='generated-last' "
        f"src='{media}/generated.png' alt='last frame of the generated video'></figure>"
        f"<figure><figcaption>Reference, last frame</figcaption><img id='reference-last' "
        f"src='{media}/reference.png' alt='last frame of the reference video'></figure></div></details>"
    )
    instruction_en, instruction_zh = shown.instruction
    return (
        ITEM_STYLE
        + closed
        + (
            f"<div id='item' data-score-url='/wmeval/api/items/{esc(view.key)}/score' data-ready='no' "
            f"data-answered='{'yes' if answered else 'no'}' data-fps='{view.fps:g}'>"
            "<p id='undo' hidden><a href='#'>Change the last answer you gave (u)</a></p>"
            f"<p id='progress'>Item {where.position} of {where.total} · {where.answered} answered · "
            f"{esc(view.task)}</p><p id='instruction'>{esc(instruction_en)} <span class='zh' lang='zh'>"
            f"{esc(instruction_zh)}</span></p><div class='stage'><div class='watch'>{players}{controls}</div>"
            f"<div class='decide-column'>{decide}</div></div>{full}</div>"
            "<script src='/wmeval/static/annotate.js'></script>"
        )
    )


def answer_text(score: int | None, cant_judge: str | None) -> str:
    """An answer in words: the score, "can't judge", or "-" for none yet."""
    if score is not None:
        return str(score)
    return "can't judge" if cant_judge is not None else "-"


def queue_body(mine: Sequence[QueueItem], following: str | None) -> str:
    """An annotator's queue: progress, a link to the next item, every item with its answer."""
    done = sum(1 for i in mine if i.answered)
    rows = "".join(
        f"<tr><td>{n}</td><td><a href='/wmeval/items/{esc(i.key)}'>{esc(i.key)}</a></td><td>{esc(i.task)}</td>"
        f"<td>{esc(answer_text(i.score, i.cant_judge))}</td></tr>"
        for n, i in enumerate(mine, start=1)
    )
    start = f"<p><a id='next' href='/wmeval/items/{esc(following)}'>Score the next item</a></p>" if following else ""
    return (
        f"<p id='progress'>{done} of {len(mine)} answered</p>{start}"
        f"<table><tr><th>#</th><th>item</th><th>task</th><th>score</th></tr>{rows}</table>"
    )


def _progress_table(title: str, counts: Mapping[str, tuple[int, int]]) -> str:
    rows = [(name, str(d), str(t), f"{(100 * d / t if t else 0):.0f}%") for name, (d, t) in counts.items()]
    return f"<h2>{esc(title)}</h2>" + table(("", "scored", "items", "done"), rows, numeric=("scored", "items", "done"))


def dashboard_body(
    done: Progress,
    waiting: Sequence[CantJudge],
    annotators: Sequence[str],
    issues: Sequence[tuple[str, str, str, str]],
    audit: Sequence[tuple[str, str, str]],
) -> str:
    """The operator's dashboard: progress, can't-judge answers waiting, re-assignment, ingest issues, audit trail."""
    options = "".join(f"<option>{esc(n)}</option>" for n in annotators)
    form = (
        "<h2>Re-assign an episode</h2><form method='post' action='/wmeval/operator/reassign'>"
        "<label>Task <input name='task' required size='8'></label> <label>Episode <input name='episode' "
        f"required size='12'></label> <label>to <select name='annotator'>{options}</select></label> "
        "<button type='submit'>Re-assign unscored items</button></form>"
    )
    cant = (
        "<h2>Can't judge: waiting for you</h2><p>Resolve each with <code>podium wmeval resolve ITEM "
        "--broken</code> (counts 0) or <code>--rescore ANNOTATOR</code>.</p>"
        + table(("item", "annotator", "team", "task", "episode", "why", "note"),
                [(w.item, w.annotator, w.team, w.task, w.episode, CANT_JUDGE.get(w.reason, w.reason), w.note)
                 for w in waiting])
        if waiting
        else ""
    )  # fmt: skip
    stranded = (
        "<h2>Disabled annotators' unscored items</h2><p class='bad'>Nobody will score these: re-assign each "
        "episode below (or <code>podium wmeval reassign TASK EPISODE ANNOTATOR</code>).</p>"
        + table(("annotator", "unscored items"), [(n, str(c)) for n, c in done.disabled_pending.items()],
                numeric=("unscored items",))
        if done.disabled_pending
        else ""
    )  # fmt: skip
    return (
        "<p><a href='/wmeval/operator/report'>Scores and statistics report</a> · "
        "<a href='/wmeval/operator/flagged'>Flagged items and notes</a></p>"
        + stranded
        + _progress_table("Progress per annotator", done.annotators)
        + _progress_table("Progress per task", done.tasks)
        + _progress_table("Progress per team", done.teams)
        + cant + form
        + "<h2>Ingest issues</h2>" + table(("team", "kind", "file", "detail"), issues)
        + "<h2>Audit trail (newest first)</h2>" + table(("at", "kind", "entry"), audit)
    )  # fmt: skip


def flagged_body(every: Sequence[AssignmentRow]) -> str:
    """Every can't-judge answer (those waiting first) and every note, for the operator."""
    rows = [r for r in every if r.cant_judge is not None or r.note.strip()]
    rows.sort(key=lambda r: (r.cant_judge is None or r.resolution is not None, r.answered_at or ""))
    header = ("item", "annotator", "team", "task", "episode", "kind", "answer", "resolution", "note", "at")
    cells = [
        (r.item, r.annotator, r.team, r.task, r.episode, r.kind,
         answer_text(r.score, r.cant_judge) + (f" ({CANT_JUDGE[r.cant_judge]})" if r.cant_judge in CANT_JUDGE else ""),
         r.resolution or ("waiting" if r.cant_judge is not None else ""), r.note, r.answered_at or "")
        for r in rows
    ]  # fmt: skip
    waiting = sum(1 for r in rows if r.cant_judge is not None and r.resolution is None)
    return (
        f"<p id='flag-summary'>{waiting} can't-judge answer(s) waiting, {len(rows)} item(s) flagged or with a "
        "note. Resolve a can't-judge with <code>podium wmeval resolve ITEM --broken</code> (counts 0) or "
        "<code>--rescore ANNOTATOR</code>.</p>"
        + (table(header, cells) if cells else "<p>Nothing flagged, no notes.</p>")
    )
