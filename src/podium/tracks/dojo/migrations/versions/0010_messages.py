"""Clarifications and announcements.

A contestant's question, the jury's answer (to the asker or to all), and the jury's announcements (to all or one
user), each about a problem or the whole contest.
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"


def upgrade() -> None:
    """Create the table."""
    op.create_table(
        "dojo_messages",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("problem_id", sa.Integer, sa.ForeignKey("dojo_problems.id"), nullable=True),
        sa.Column("author_id", sa.Integer, sa.ForeignKey("dojo_users.id"), nullable=False),
        sa.Column("recipient_id", sa.Integer, sa.ForeignKey("dojo_users.id"), nullable=True),
        sa.Column("reply_to", sa.Integer, sa.ForeignKey("dojo_messages.id"), nullable=True),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.CheckConstraint("kind IN ('question', 'answer', 'announcement')", name="ck_dojo_messages_kind"),
    )
    op.create_index("ix_dojo_messages_reply_to", "dojo_messages", ["reply_to"])
