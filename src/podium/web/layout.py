"""One page layout for every track's pages: a title, a line of navigation links, the body.

Pages are plain HTML built from strings: the layout escapes the title, the site name and the links; the body is
HTML the track built, escaping every value it puts in (``esc``). The head declares an empty icon, so a browser
asks for no ``/favicon.ico`` that would fail.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

STYLE = (
    "body{font:15px system-ui;margin:2rem auto;max-width:60rem}td,th{padding:.2rem .6rem;text-align:left}"
    "pre,code{background:#f4f4f4}"
)


def esc(text: str) -> str:
    """HTML-escape ``text`` (quotes too, so it is safe in attribute values)."""
    return html.escape(text, quote=True)


def page(title: str, body: str, *, site: str, nav: Sequence[tuple[str, str]] = ()) -> str:
    """A whole page: ``<title>`` "title · site", the ``nav`` links (label, href), an ``<h1>`` title, ``body``."""
    links = " · ".join(f"<a href='{esc(href)}'>{esc(label)}</a>" for label, href in nav)
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{esc(title)} · {esc(site)}</title><link rel='icon' href='data:,'>"
        f"<style>{STYLE}</style></head>"
        f"<body><nav>{links}</nav><h1>{esc(title)}</h1>{body}</body></html>"
    )
