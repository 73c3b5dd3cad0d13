"""Freezing the scores before they are published: while frozen, no answer is stored, changed or resolved.

The organisers compute and publish the leaderboard from a fixed set of answers: ``podium wmeval freeze`` closes
scoring (the page, the API, CSV imports and can't-judge resolutions all refuse with 409 and say so), ``unfreeze``
reopens it. Both are audited. The time of the freeze is kept in ``wmeval_meta``; the report and ``scores`` say
whether the numbers they show can still change.
"""

from __future__ import annotations

from sqlalchemy import Connection, Engine, delete, insert, select

from podium.core.clock import Clock, utc_text
from podium.core.errors import ConflictError
from podium.tracks.wmeval.schema import meta
from podium.tracks.wmeval.store import append_audit, transaction

FROZEN_KEY = "scoring_frozen_at"


def frozen_since(db: Connection) -> str | None:
    """When scoring was frozen (UTC text), or None while it is open."""
    value = db.execute(select(meta.c.value).where(meta.c.key == FROZEN_KEY)).scalar()
    return None if value is None else str(value)


def check_open(db: Connection) -> None:
    """``ConflictError`` while scoring is frozen (call inside the write transaction that would change an answer)."""
    since = frozen_since(db)
    if since is not None:
        raise ConflictError(
            f"scoring is frozen since {since}: the answers are being published",
            fix="an operator can reopen it with `podium wmeval unfreeze`",
        )


def freeze(engine: Engine, clock: Clock) -> str:
    """Close scoring; when it was closed (the earlier time if it already was)."""
    at = utc_text(clock.now())
    with transaction(engine) as db:
        since = frozen_since(db)
        if since is not None:
            return since
        db.execute(insert(meta).values(key=FROZEN_KEY, value=at))
        append_audit(db, at, "scoring_frozen", {})
    return at


def unfreeze(engine: Engine, clock: Clock) -> bool:
    """Reopen scoring; whether it was frozen."""
    at = utc_text(clock.now())
    with transaction(engine) as db:
        if frozen_since(db) is None:
            return False
        db.execute(delete(meta).where(meta.c.key == FROZEN_KEY))
        append_audit(db, at, "scoring_unfrozen", {})
    return True
