"""A submission's idempotency key: a client that retries a post after a failure gets the first receipt back.

The key is the client's (HTTP ``Idempotency-Key``, or the one ``podium dojo submit --server`` makes per submission),
unique per user, NULL where none was given.
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"


def upgrade() -> None:
    """Add the column and its unique index."""
    with op.batch_alter_table("dojo_submissions") as table:
        table.add_column(sa.Column("idempotency_key", sa.String(64), nullable=True))
    op.create_index("ux_dojo_submissions_idempotency", "dojo_submissions", ["user_id", "idempotency_key"], unique=True)
