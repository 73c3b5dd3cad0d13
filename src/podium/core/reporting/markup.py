"""The one HTML layer of every page and report podium writes: escaping, the document skeleton, tables.

Served pages (``podium.web.layout.page``, dojo and wmeval) and static reports (pcg's ``report.html``, wmeval's
report) are built from these, with the charts beside them (``charts.py``), so a value is escaped, a table laid
out and a page opened the same way everywhere. Pages are plain HTML built from strings: ``esc`` every value a
track puts in; ``table`` escapes its cells itself.
"""

from __future__ import annotations

import html
from collections.abc import Sequence


def esc(text: str) -> str:
    """HTML-escape ``text`` (quotes too, so it is safe in attribute values)."""
    return html.escape(text, quote=True)


def table(header: Sequence[str], rows: Sequence[Sequence[str]], *, numeric: Sequence[str] = ()) -> str:
    """An HTML table; every header and cell is plain text (escaped here); ``numeric`` columns align right."""
    right = [" class='n'" if name in numeric else "" for name in header]
    head = "".join(f"<th{r}>{esc(name)}</th>" for r, name in zip(right, header, strict=True))
    body = "".join(
        "<tr>" + "".join(f"<td{r}>{esc(cell)}</td>" for r, cell in zip(right, row, strict=True)) + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def document(title: str, body: str, *, style: str = "", head: str = "") -> str:
    """A whole HTML document around ``body`` (as given).

    Its head holds the escaped ``<title>``, an empty icon (no ``/favicon.ico`` request), the style and any more
    ``head`` markup.
    """
    styled = f"<style>{style}</style>" if style else ""
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width,initial-scale=1'>"
        f"<title>{esc(title)}</title><link rel='icon' href='data:,'>{styled}{head}</head><body>{body}</body></html>"
    )
