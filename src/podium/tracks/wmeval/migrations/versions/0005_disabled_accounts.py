"""Accounts can be disabled: an organiser removes a person without deleting what they did.

``disabled_at`` set: the token and every session of the account stop working; its scores and audit entries stay.
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    """Add the column."""
    with op.batch_alter_table("wmeval_users") as table:
        table.add_column(sa.Column("disabled_at", sa.String(32)))
