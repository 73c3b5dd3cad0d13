"""Web sessions: a signed-in page keeps a session id in its cookie, never the permanent API token.

The cookie used to hold the token itself, and signing out only asked the browser to forget it: a copied cookie
worked for ever. A session is a row here (the SHA-256 of its id, the account, an expiry); signing out deletes it.
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    """Create the sessions table."""
    op.create_table(
        "wmeval_sessions",
        sa.Column("id_sha256", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("wmeval_users.id"), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("expires_at", sa.String(32), nullable=False),
    )
    op.create_index("ix_wmeval_sessions_account_id", "wmeval_sessions", ["account_id"])
