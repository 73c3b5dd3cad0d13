"""The problem lifecycle (docs/rules/dojo-platform.md §2): ``DRAFT → VALIDATING → OPEN → FROZEN → REVEALED → ARCHIVED``.

Side exits: ``REJECTED`` (validation failed; a fixed setter goes back to ``DRAFT``), ``WITHDRAWN`` (by the setter
before opening) and ``VOID`` (annulled by the operator, from any live state). Any other move is an error.
"""

from __future__ import annotations

import enum

from podium.core.errors import ConflictError


class ProblemState(enum.StrEnum):
    """Where a problem is in its life."""

    DRAFT = "DRAFT"
    VALIDATING = "VALIDATING"
    OPEN = "OPEN"
    FROZEN = "FROZEN"
    REVEALED = "REVEALED"
    ARCHIVED = "ARCHIVED"
    REJECTED = "REJECTED"
    WITHDRAWN = "WITHDRAWN"
    VOID = "VOID"


S = ProblemState
TRANSITIONS: dict[ProblemState, frozenset[ProblemState]] = {
    S.DRAFT: frozenset({S.VALIDATING, S.WITHDRAWN, S.VOID}),
    S.VALIDATING: frozenset({S.OPEN, S.REJECTED, S.WITHDRAWN, S.VOID}),
    S.REJECTED: frozenset({S.DRAFT, S.WITHDRAWN}),
    S.OPEN: frozenset({S.FROZEN, S.VOID}),
    S.FROZEN: frozenset({S.REVEALED, S.VOID}),
    S.REVEALED: frozenset({S.ARCHIVED}),
    S.ARCHIVED: frozenset(),
    S.WITHDRAWN: frozenset(),
    S.VOID: frozenset(),
}
# States whose problem page shows the published commitments; and those whose secrets are public.
PUBLISHED = frozenset({S.OPEN, S.FROZEN, S.REVEALED, S.ARCHIVED})
REVEALED_STATES = frozenset({S.REVEALED, S.ARCHIVED})


class LifecycleError(ConflictError):
    """A move or a request the problem's current state does not allow (HTTP 409)."""


def check_transition(current: ProblemState, target: ProblemState, problem: str) -> None:
    """Raise ``LifecycleError`` unless ``current → target`` is allowed."""
    if target not in TRANSITIONS[current]:
        allowed = ", ".join(sorted(TRANSITIONS[current])) or "none (final state)"
        raise LifecycleError(
            f"problem {problem!r} is {current.value}; it cannot become {target.value}",
            fix=f"from {current.value} it can become: {allowed}",
        )
