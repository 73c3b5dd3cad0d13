"""A judged submission carries the length the judge measured: no row reaches a leaderboard without one.

Before this revision a source the judge would not admit (over the size limit, not UTF-8) was stored truncated with
no length, judged on its truncated bytes, and ranked with L = 0. Such rows (no length, judged or still queued) are
marked here as what the judge says of the real source: judged ``POLICY_REJECT``, no gates, and the CHECK constraint
keeps it so. They never reach a leaderboard (``results.counted`` requires a length).
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"

JUDGED_HAS_LENGTH = "status <> 'judged' OR length IS NOT NULL OR verdict = 'POLICY_REJECT'"
REASON = "the source was not admitted at submission (too large or not UTF-8); stored truncated, never judged as sent"


def upgrade() -> None:
    """Mark the rows without a length as rejected, then add the constraint."""
    rows = sa.table(
        "dojo_submissions",
        sa.column("status", sa.String),
        sa.column("length", sa.Integer),
        sa.column("verdict", sa.String),
        sa.column("reason", sa.Text),
        sa.column("stage_pass", sa.Boolean),
        sa.column("reward_correct", sa.Boolean),
    )
    op.execute(
        sa.update(rows)
        .where(rows.c.length.is_(None))
        .values(status="judged", verdict="POLICY_REJECT", reason=REASON, stage_pass=False, reward_correct=False)
    )
    with op.batch_alter_table("dojo_submissions") as table:
        table.create_check_constraint("ck_dojo_submissions_judged_length", JUDGED_HAS_LENGTH)
