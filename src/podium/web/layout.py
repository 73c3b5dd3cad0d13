"""One page layout for every track's served pages: a title, a line of navigation links, the body; and its parts.

Built on the core's one HTML layer (``podium.core.reporting.markup``: ``esc``, ``table``, ``document``, which the
static reports use too): the layout escapes the title, the site name and the links; the body is HTML the track
built, escaping every value it puts in. The part served pages need is here: a block of text with a copy button
(``copyable``), kept to a few lines' height however long the text is, so 200 terms do not make a page thousands of
pixels high; one small script copies it, served by the app at ``SCRIPT_PATH`` (a page runs no inline script:
``podium.web.security``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from podium.core.reporting.markup import document, esc, table

__all__ = ["SCRIPT", "SCRIPT_PATH", "STYLE", "copyable", "countdown", "document", "esc", "page", "table", "time_left"]

STYLE = (
    "body{font:15px system-ui;margin:2rem auto;max-width:60rem;padding:0 1rem}"
    "table{border-collapse:collapse;margin:.5rem 0}td,th{padding:.2rem .6rem;text-align:left;"
    "border-bottom:1px solid #ddd;vertical-align:top}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}"
    "pre,code{background:#f4f4f4}pre{padding:.5rem;overflow-x:auto}"
    ".copy{position:relative}.copy pre{white-space:pre-wrap;padding-right:5rem;overflow-wrap:anywhere;max-height:9.5em;"
    "overflow-y:auto;margin:.3rem 0}.copy button{position:absolute;top:.3rem;right:1.2rem}"
    ".note{color:#555}"
    # a phone (390 px) never scrolls the page sideways: long hashes wrap, wide tables and code scroll in place
    "table{display:block;max-width:100%;overflow-x:auto}code{overflow-wrap:anywhere;word-break:break-all}"
    "textarea,input,select{max-width:100%;box-sizing:border-box}textarea{width:100%}"
    "@media (max-width:40rem){body{margin:1rem auto;padding:0 .6rem}h1{font-size:1.4rem}}"
)
SCRIPT_PATH = "/_podium/layout.js"
# Copies the text of the element a ``data-copy`` button names; says so on the button for a moment.
# Counts down every ``data-until`` time (``countdown``) once a second, in the words the server wrote first.
SCRIPT = (
    "document.addEventListener('click',e=>{const b=e.target.closest('[data-copy]');if(!b)return;"
    "navigator.clipboard.writeText(document.getElementById(b.dataset.copy).textContent)"
    ".then(()=>{b.textContent='Copied';setTimeout(()=>{b.textContent='Copy'},1500)})});"
    "function podiumLeft(s){if(s<=0)return'now (reload the page)';const d=Math.floor(s/86400),"
    "h=Math.floor(s%86400/3600),m=Math.floor(s%3600/60),r=Math.floor(s%60),p=[];if(d)p.push(d+' d');"
    "if(d||h)p.push(h+' h');if(d||h||m)p.push(m+' min');if(!d)p.push(r+' s');return'in '+p.join(' ')}"
    "function podiumTick(){document.querySelectorAll('[data-until]').forEach(t=>{"
    "t.textContent=podiumLeft((Date.parse(t.dataset.until)-Date.now())/1000)})}"
    "document.addEventListener('DOMContentLoaded',()=>{podiumTick();setInterval(podiumTick,1000)});"
)


def time_left(seconds: float) -> str:
    """``seconds`` from now in words, as the page's script writes them ("in 1 h 5 min 3 s"; "now" once past)."""
    if seconds <= 0:
        return "now (reload the page)"
    whole = int(seconds)
    days, hours, minutes, rest = whole // 86400, whole % 86400 // 3600, whole % 3600 // 60, whole % 60
    parts = [f"{days} d"] if days else []
    parts += [f"{hours} h"] if days or hours else []
    parts += [f"{minutes} min"] if days or hours or minutes else []
    parts += [] if days else [f"{rest} s"]
    return "in " + " ".join(parts)


def countdown(until: datetime, now: datetime) -> str:
    """A ``<time>`` that says how long until ``until`` (UTC), and that the page's script counts down live."""
    stamp = until.astimezone(UTC).isoformat().replace("+00:00", "Z")
    left = time_left((until - now).total_seconds())
    return f"<time class='countdown' datetime='{stamp}' data-until='{stamp}'>{left}</time>"


def copyable(element_id: str, text: str) -> str:
    """``text`` in a wrapped monospace block of a few lines (scrolling beyond) with a button that copies it all."""
    return (
        f"<div class='copy'><button type='button' data-copy='{esc(element_id)}'>Copy</button>"
        f"<pre id='{esc(element_id)}'>{esc(text)}</pre></div>"
    )


def page(title: str, body: str, *, site: str, nav: Sequence[tuple[str, str]] = ()) -> str:
    """A whole page: ``<title>`` "title · site", the ``nav`` links (label, href), an ``<h1>`` title, ``body``."""
    links = " · ".join(f"<a href='{esc(href)}'>{esc(label)}</a>" for label, href in nav)
    return document(f"{title} · {site}", f"<nav>{links}</nav><h1>{esc(title)}</h1>{body}", style=STYLE,
                    head=f"<script src='{SCRIPT_PATH}' defer></script>")  # fmt: skip
