"""Text every database podium supports can store, checked before it gets there.

PostgreSQL refuses a NUL character in ``text`` columns, and no UTF-8 holds a lone surrogate (which JSON's escaped
U+D800 carries into Python). Input with either is refused up front by every interface, on SQLite too, with an
error that names the field (``unstorable``): a value that reached the database would fail the write there, as a
500 or a worker's failure. Text podium composes from untrusted material (an exception's message, a program's
output) is made storable instead (``one_line``). No SQLAlchemy here: the command line checks input without it.
"""

from __future__ import annotations


def unstorable(value: str) -> str | None:
    """Why ``value`` cannot be stored as text (a NUL, a lone surrogate), or None when it can."""
    if "\x00" in value:
        return f"a NUL character (U+0000) at character {value.index(chr(0))}, which the database cannot store"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        return f"a lone surrogate at character {error.start}, which is not valid Unicode"
    return None


def one_line(text: str, limit: int) -> str:
    """``text`` as one printable line any database stores (no NUL, no control character), at most ``limit`` long."""
    cleaned = "".join(c if c.isprintable() else " " for c in text.encode("utf-8", "replace").decode("utf-8"))
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 3] + "..."
