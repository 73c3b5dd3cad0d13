"""Each submission stores its fair-share turn when it is queued.

Migration 0006 let a claim count, for every queued candidate, the same solver's earlier submissions still
unclaimed. A claim now reads the lowest stored ``turn`` from an index (``podium.core.job_queue``, "Fair share"); the
count's index goes. Submissions queued now get their turn as the solver's rank among their own queued ones,
which is the round each would have been claimed in.
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"


def upgrade() -> None:
    """Add and fill the column, and swap the indexes."""
    with op.batch_alter_table("dojo_submissions") as table:
        table.add_column(sa.Column("turn", sa.Integer, nullable=False, server_default="0"))
    op.execute(
        "UPDATE dojo_submissions SET turn = (SELECT count(*) FROM dojo_submissions AS earlier"
        " WHERE earlier.user_id = dojo_submissions.user_id AND earlier.status = 'queued'"
        " AND earlier.id < dojo_submissions.id) WHERE status = 'queued'"
    )
    op.drop_index("ix_dojo_submissions_fair_turn", "dojo_submissions")
    op.create_index("ix_dojo_submissions_claim_order", "dojo_submissions", ["status", "turn", "id"])
    op.create_index("ix_dojo_submissions_user_turn", "dojo_submissions", ["user_id", "status", "turn"])
