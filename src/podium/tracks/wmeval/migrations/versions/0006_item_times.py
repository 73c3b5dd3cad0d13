"""Time on item: when each annotator first opened an item, and first answered it.

The organisers asked how long an item takes (to plan the annotators' hours, and to see who answers without
watching). The page records the first opening; the first answer records its time. An item moved to another
annotator (a re-assignment, a re-score) gets a row for that annotator.
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    """Create the table."""
    op.create_table(
        "wmeval_item_times",
        sa.Column("item_id", sa.Integer, sa.ForeignKey("wmeval_items.id"), primary_key=True),
        sa.Column("annotator_id", sa.Integer, sa.ForeignKey("wmeval_users.id"), primary_key=True),
        sa.Column("opened_at", sa.String(32), nullable=False),
        sa.Column("answered_at", sa.String(32)),
    )
