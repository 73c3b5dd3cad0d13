"""Submissions record why their claimed method tag was ignored (method-tag review, docs/rules/dojo-platform.md §9)."""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    """Add ``dojo_submissions.tag_override``: NULL where the claim stands."""
    with op.batch_alter_table("dojo_submissions") as table:
        table.add_column(sa.Column("tag_override", sa.Text, nullable=True))
