"""An annotator may answer "can't judge" instead of a score; the operator resolves it.

``wmeval_scores.score`` becomes nullable (a can't-judge answer has no score), and two columns are added:
``cant_judge`` (``reference``, ``video`` or ``other``: what kept the annotator from judging) and ``resolution``
(``broken``, set by the operator: the video counts 0, as the rubric scores a missing or broken video). The old
``unplayable`` flag was exactly that resolution: such rows become ``cant_judge = 'video'``, resolved ``broken``.
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    """Add the columns, move the unplayable flags over, drop the flag (batch mode: SQLite rebuilds the table)."""
    with op.batch_alter_table("wmeval_scores") as table:
        table.add_column(sa.Column("cant_judge", sa.String(16)))
        table.add_column(sa.Column("resolution", sa.String(16)))
        table.alter_column("score", existing_type=sa.Integer, nullable=True)
    rows = sa.table(
        "wmeval_scores",
        sa.column("score", sa.Integer),
        sa.column("unplayable", sa.Boolean),
        sa.column("cant_judge", sa.String),
        sa.column("resolution", sa.String),
    )
    op.execute(
        sa.update(rows)
        .where(rows.c.unplayable == sa.true())
        .values(score=None, cant_judge="video", resolution="broken")
    )
    with op.batch_alter_table("wmeval_scores") as table:
        table.drop_column("unplayable")
