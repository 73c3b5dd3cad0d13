"""The ``--edition YEAR`` option of every ``podium pcg`` command: a year of ``EDITIONS``, handed over as its record.

The years are read from ``EDITIONS`` when the command runs, so an edition added there needs no change here; a
command that only some editions have (``qualify``: a qualification script) names what it needs and refuses the
others, listing those that have it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from podium.tracks.pcg.editions import DEFAULT_EDITION, EDITIONS, Edition

F = TypeVar("F", bound=Callable[..., Any])


def edition_option(needs: Callable[[Edition], bool] | None = None, what: str = "") -> Callable[[F], F]:
    """``--edition``, converted to an ``Edition``; with ``needs``, only editions that have ``what``.

    The default is ``DEFAULT_EDITION``, or the latest edition that has ``what``.
    """
    fitting = [e.year for e in EDITIONS.values() if needs is None or needs(e)]
    default = DEFAULT_EDITION if DEFAULT_EDITION in fitting else max(fitting)

    def convert(context: click.Context, parameter: click.Parameter, year: int) -> Edition:
        chosen = EDITIONS.get(year)
        allowed = [e.year for e in EDITIONS.values() if needs is None or needs(e)]
        if chosen is None or year not in allowed:
            known = ", ".join(str(y) for y in allowed)
            reason = f"has no {what}" if chosen is not None else "is not an edition podium knows"
            raise click.BadParameter(f"{year} {reason}; use one of {known}")
        return chosen

    return click.option(
        "--edition",
        type=int,
        default=default,
        show_default=True,
        callback=convert,
        help="Competition year: selects the rules, formats and formulas (docs/design/pcg-editions.md).",
    )
